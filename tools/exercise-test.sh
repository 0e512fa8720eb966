# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise-test.sh PATTERN: a workspace's make test (the exercises appendix).
# Runs each of the exercise's tests alone and reads it as the grader does: a
# test passes only if its report says PASSED and the test reached its end.
set -u -o pipefail
shopt -s extglob
source tools/exercise-verdict.sh
pattern=$1 limit=${EXERCISE_TIME_LIMIT:-60} passed=0 failed=0
mkdir -p build/reports
while IFS=$'\t' read -r program name; do
    report=build/reports/${name//\//__}.json
    rm -f "$report"
    status=0
    (cd tests && SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software \
        MHA_MODEL_DIR=../models/induction timeout -k 2 "$limit" "../build/$program" \
        --jobs=1 --json="../$report" --filter="$name") < /dev/null > "${report%.json}.log" 2>&1 ||
        status=$?
    st=""; asserts=0; message=""
    IFS=$'\t' read -r _ st asserts message < <(report_results "$report" |
        awk -F '\t' -v n="$name" '$1 == n') || true
    test_outcome "$st" "$asserts" "$status" "$limit"
    if [[ $outcome == pass ]]; then
        passed=$((passed + 1)); echo "  pass:    $name"
    else
        failed=$((failed + 1))
        echo "  $outcome: $name${message:+: $message} (log: ${report%.json}.log)"
    fi
done < <(tests_matching . "$pattern")
echo "$(sed -n 's/^EXERCISE *:= *//p' exercise.mk): $passed passed, $failed failed"
[[ $passed -gt 0 && $failed -eq 0 ]]
