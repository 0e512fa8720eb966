# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise-verdict.sh: the grader's reading of one test (the exercises
# appendix), sourced by tools/exercise.sh and by a workspace's make test.

tests_matching() { # DIR PATTERN...: "program<TAB>suite/test" for each test that matches
    local dir=$1 file name program pattern
    shift
    (cd "$dir" && grep -D skip -HoE '^Test\( *[A-Za-z0-9_]+ *, *[A-Za-z0-9_]+' \
                    tests/*.c tests/*.names tests/viz/*.c \
                    2>/dev/null || true) |
    sed -E 's/^([^:]*):Test\( *([A-Za-z0-9_]+) *, *([A-Za-z0-9_]+)$/\1\t\2\/\3/' |
    while IFS=$'\t' read -r file name; do
        program=tests
        [[ $file != tests/viz/* ]] || program=viz-tests
        for pattern in "$@"; do
            [[ $name == $pattern ]] && { printf '%s\t%s\n' "$program" "$name"; break; }
        done
        :
    done
}

report_results() {
    [[ -s "$1" ]] || return 0
    awk -v OFS='\t' '
        function value(s) { sub(/^[^:]*: *"?/, "", s); sub(/"?,? *$/, "", s); return s }
        function flush() {
            if (test != "") print suite "/" test, status, asserts, message; test = "" }
        /"tests": \[/ { intests = 1; next }
        intests && /^ *\],?$/ && !inmessages { flush(); intests = 0; next }
        /"name":/ { if (intests) {
                        flush(); test = value($0); status = ""; asserts = 0; message = "" }
                    else suite = value($0); next }
        intests && /"assertions":/ { asserts = value($0) + 0 }
        intests && /"status":/ { status = value($0) }
        intests && /"messages": \[ *"/ {
            m = $0; sub(/^[^[]*\[ *"/, "", m); sub(/" *\].*$/, "", m); message = m; next }
        intests && /"messages": \[ *$/ { inmessages = 1; next }
        inmessages && /^ *\]/ { inmessages = 0; next }
        inmessages && message == "" {
            m = $0; sub(/^ *"/, "", m); sub(/",? *$/, "", m); message = m }
        END { flush() }' "$1"
}

test_outcome() { # STATUS ASSERTIONS EXIT LIMIT: set outcome, and message when it says more
    case "$1" in
        PASSED)  if [[ ${2:-0} -gt 0 ]]; then outcome=pass; message=""
                 else outcome=early
                      message="the test's process exited before the test reached its end"; fi ;;
        FAILED)  outcome=fail ;;
        ERRORED) outcome=crash ;;
        DAMAGED) outcome=fail
                 message="its report was not the runner's alone: the hand-in wrote into it" ;;
        *)       if [[ $3 -eq 124 || $3 -eq 137 ]]; then outcome=hang
                     message="still running after $4 s: killed"
                 else outcome=crash
                      message="the test program stopped (status $3) before it reported"; fi ;;
    esac
}
