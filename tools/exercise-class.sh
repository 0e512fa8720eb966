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
cp "$out/solved.c" "$c/byrongeorge_LATE_104_7002_attend.c"
{ printf '\357\273\277Student,ID,SIS User ID,SIS Login ID,Section,Softmax (2041)\n'
  echo '    Points Possible,,,,,10.00'
  echo '"Lovelace, Ada ""the Countess""",101,S001,ada lovelace.c,Mon 9:00,'
  echo '"Deep, Dan",102,S002,dan,Mon 9:00,'
  echo '"Byron, George",104,S004,gbyron,Tue 14:00,'
  echo '"Absent, Al",103,S003,absent,Tue 14:00,'
  echo '"Nobody, Noid",106,,noid,Tue 14:00,'
  echo '"Student, Test",105,,,,'; } > "$out/roster.csv"
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
expect "noid" missing '"","Nobody, Noid","noid"'
expect "byrongeorge_LATE_104_7002_attend" PASS '"S004","Byron, George"'
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
for line in "\"S001\",\"\",\"Lovelace, Ada \"\"the Countess\"\"\",$max,\"PASS\"" \
            "\"S003\",\"\",\"Absent, Al\",,\"missing: no hand-in named absent\""; do
    grep -qxF -- "$line" "$g/moodle.csv" ||
        { echo "exercises-class: moodle.csv has no line $line" >&2; bad=1; }
done
[[ $(wc -l < "$g/moodle.csv") -eq 6 ]] ||
    { echo "exercises-class: moodle.csv holds a row for a student off the roster" >&2; bad=1; }
ada='"Lovelace, Ada ""the Countess"""'
for line in "Points Possible,,,,,$max" \
            "$ada,101,\"S001\",\"ada lovelace.c\",\"Mon 9:00\",$max" \
            "\"Byron, George\",104,\"S004\",\"gbyron\",\"Tue 14:00\",$max"; do
    grep -qxF -- "$line" "$g/canvas.csv" ||
        { echo "exercises-class: canvas.csv has no line $line" >&2; bad=1; }
done
{ echo '"First name","Last name","ID number",Institution,"Email address"'
  echo 'Ada,Lovelace,,Univ,ada@uni.example'
  echo 'Mary,Somerville,M77,Univ,mary@uni.example'
  echo 'John,Smith,,Univ,js1@uni.example'
  echo 'John,Smith,,Univ,js2@uni.example'; } > "$out/moodle-roster.csv"
tool roster "$out/moodle-roster.csv" "Ada Lovelace_4401_assignsubmission_file_" ada.c \
    mary@uni.example M77.c "John Smith_4403_assignsubmission_file_" js2 \
    > "$out/moodle-rows.txt"
printf '%s\n' $'Ada Lovelace_4401_assignsubmission_file_\t1\t\tAda Lovelace' \
    $'ada.c\t1\t\tAda Lovelace' $'mary@uni.example\t2\tM77\tMary Somerville' \
    $'M77.c\t2\tM77\tMary Somerville' $'John Smith_4403_assignsubmission_file_\t-' \
    $'js2\t4\t\tJohn Smith' | cmp -s - "$out/moodle-rows.txt" ||
    { echo "exercises-class: Moodle's roster gives other lines:" >&2
      cat "$out/moodle-rows.txt" >&2; bad=1; }
printf 'ID,Name,Hand-in\nS9,"Ng, Bo",bo.c\n' > "$out/own-roster.csv"
own=$(tool roster "$out/own-roster.csv" bo.c bo x.c)
[[ $own == $'bo.c\t1\tS9\tNg, Bo\nbo\t-\nx.c\t-' ]] ||
    { echo "exercises-class: a roster of three columns gives other lines" >&2; bad=1; }
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
