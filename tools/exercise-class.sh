# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise-class.sh OUT: grade a class made to try the grader, and check its gradebook.
set -eu -o pipefail
out=${1:?usage: exercise-class.sh OUT}
tool() { bash tools/exercise.sh "$@"; }
rm -rf "$out" && mkdir -p "$out/class" "$out/ws"
out=$(cd "$out" && pwd)       # absolute: the grader works in folders of its own
tool create softmax-stable "$out/ws" > /dev/null
place=src/attend.c
cp "$out/ws/$place" "$out/stub.c"
tool solve softmax-stable "$out/ws" && cp "$out/ws/$place" "$out/solved.c"
with() { # NAME CODE-FILE: the stub with CODE between the markers
    awk -v body="$2" '
        skip && /END EXERCISE softmax-stable \*\// { skip = 0 } skip { next } { print }
        /BEGIN EXERCISE softmax-stable:/ { while ((getline l < body) > 0) print l; skip = 1 }' \
        "$out/stub.c" > "$out/class/$1"
}
c=$out/class
for name in "ada lovelace.c" $'tab\tname.c' "=HYPERLINK(1).c" "-minus.c" ".dot.c"; do
    cp "$out/solved.c" "$c/$name"
done
mkdir -p "$c/dan/deep/er" "$c/eve" "$c/two"
cp "$out/solved.c" "$c/dan/deep/er/attend.c"
cp "$out/solved.c" "$c/eve/attend.c" && cp "$out/stub.c" "$c/eve.c"
cp "$out/stub.c" "$c/stub untouched.c"
cp "$out/solved.c" "$c/two/a.c" && cp "$out/solved.c" "$c/two/b.c"
grep '^== softmax-stable ' tools/exercise-tricks.txt | grep -v ' unscreened-' |
    while IFS= read -r head; do
    name=${head#== softmax-stable }; name=${name%%:*}
    awk -v head="$head" '$0 == head { on = 1; next } /^== / { on = 0 } on' \
        tools/exercise-tricks.txt > "$out/trick"
    with "trick $name.c" "$out/trick"
done
printf '    (void)x; (void)n;\n    for (;;) { }\n' > "$out/loop" && with "endless loop.c" "$out/loop"
ln -s "$(cd "$out" && pwd)/solved.c" "$c/link to solved.c"
ln -s /nonexistent "$c/dangling.c"
mkfifo "$c/fifo.c"
cp "$out/solved.c" "$c/line
break.c"
{ echo 'Student ID,Full name,File submitted'
  echo '"S001","Lovelace, Ada ""the Countess""",ada lovelace.c'
  echo 'S002,Dan Deep,dan'
  echo 'S003,"Absent, Al",absent.c'; } > "$out/roster.csv"
start=$(date +%s)
EXERCISE_TIME_LIMIT=${EXERCISE_TIME_LIMIT:-10} EXERCISE_ROSTER="$out/roster.csv" \
    tool grade softmax-stable "$c" "$out/grade" 2>&1 | tee "$out/grade.txt"
seconds=$(( $(date +%s) - start ))
bad=0
expect() { # STUDENT VERDICT [WORDS]
    local row
    row=$(grep -F -- "\"$1\",\"$2\"" "$out/grade/gradebook.csv" | head -1 || true)
    if [[ -z "$row" || ( -n "${3:-}" && "$row" != *"$3"* ) ]]; then
        echo "exercises-class: $1 is not $2 ${3:+with '$3'}" >&2; bad=1
    fi
}
for s in "ada lovelace" $'tab\tname' "'=HYPERLINK(1)" "'-minus" ".dot" dan eve; do
    expect "$s" PASS
done
expect eve FAIL "held_out"
expect "stub untouched" FAIL "fail"
expect two FAIL "2 files"
expect "link to solved" FAIL "symlink"
expect dangling FAIL "symlink"
expect fifo FAIL "not a regular file"
expect "line?break" FAIL "line break"
expect "endless loop" FAIL "hang"
expect "ada lovelace" PASS '"S001","Lovelace, Ada ""the Countess""","ada lovelace"'
expect "absent" missing '"S003","Absent, Al","absent"'
grep -qF "grade: eve is not on the roster" "$out/grade.txt" ||
    { echo "exercises-class: a hand-in not on the roster is not named" >&2; bad=1; }
grep '^== softmax-stable ' tools/exercise-tricks.txt | grep -v ' unscreened-' |
    while IFS= read -r head; do
    name=${head#== softmax-stable }; words=${name#*: }; name=${name%%:*}
    expect "trick $name" FAIL "$words"
    [[ $bad -eq 0 ]] || exit 1
done || bad=1
! pgrep -f "$out/grade/work" > /dev/null || { echo "exercises-class: a process is left" >&2; bad=1; }
g=$out/grade
[[ $(head -c 3 "$g/gradebook.csv" | od -An -tx1 | tr -d ' ') == efbbbf ]] ||
    { echo "exercises-class: gradebook.csv has no byte-order mark" >&2; bad=1; }
max=$(wc -l < "$g/template/graded")
for line in "\"S001\",\"Lovelace, Ada \"\"the Countess\"\"\",$max,\"PASS\"" \
            "\"S003\",\"Absent, Al\",,\"missing: no hand-in named absent.c\""; do
    grep -qxF -- "$line" "$g/moodle.csv" ||
        { echo "exercises-class: moodle.csv has no line $line" >&2; bad=1; }
done
[[ $(wc -l < "$g/moodle.csv") -eq 4 ]] ||
    { echo "exercises-class: moodle.csv holds a row for a student off the roster" >&2; bad=1; }
grep -qxF "Points Possible,,,,,$max" "$g/canvas.csv" ||
    { echo "exercises-class: canvas.csv has no row of points possible" >&2; bad=1; }
python3 -c 'import json, sys
rows = {r["student"] + "/" + r["verdict"]: r for r in json.load(open(sys.argv[1]))["students"]}
ada, absent = rows["ada lovelace/PASS"], rows["absent/missing"]
ok = ada["score"] == ada["out_of"] == int(sys.argv[2]) and ada["percent"] == 100 and \
     absent["score"] is None and absent["percent"] is None and absent["status"] == "missing" and \
     rows["eve/PASS"]["status"] == "unlisted"
sys.exit(0 if ok else 1)' "$g/gradebook.json" "$max" ||
    { echo "exercises-class: gradebook.json has the wrong numbers or kinds" >&2; bad=1; }
[[ $bad -eq 0 ]]
echo "exercises-class: $(find "$c" -mindepth 1 -maxdepth 1 | wc -l) hand-ins graded in $seconds s;" \
     "every verdict as expected; no process left"
