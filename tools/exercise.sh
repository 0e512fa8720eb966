# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise.sh COMMAND ARGS: the book's exercises (the exercises appendix).
#   list | create ID DIR | solve ID DIR | check ID DIR [WORK] | verify [ID...]
#   | student-web DIR
# NW must hold the web's files in reading order.
set -eu -o pipefail
: "${NW:?exercise.sh: set NW to the files of the web, in reading order}"
read -r -a web < <(echo "$NW")
tools_dir=$(dirname "$0")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "exercise: $*" >&2; exit 2; }
markers() {
    awk -v OFS='\t' '
    function complain(why) { printf "%s:%d: %s\n", FILENAME, FNR, why > "/dev/stderr"; bad = 1 }
    /^%exercise / {
        split("", field)
        rest = substr($0, 11)
        while (1) {
            sub(/^ +/, "", rest)
            if (rest == "")
                break
            eq = index(rest, "=")
            if (eq < 2) { complain("cannot read the marker at: " rest); break }
            key = substr(rest, 1, eq - 1); rest = substr(rest, eq + 1)
            if (substr(rest, 1, 1) == "\"") {
                rest = substr(rest, 2); stop = index(rest, "\"")
                if (stop == 0) { complain("unclosed quote in the marker"); break }
                field[key] = substr(rest, 1, stop - 1); rest = substr(rest, stop + 1)
            } else {
                stop = index(rest " ", " ")
                field[key] = substr(rest, 1, stop - 1); rest = substr(rest, stop)
            }
        }
        if (!("id" in field) || !("title" in field)) { complain("marker needs id and title"); next }
        if (seen[field["id"]]++) { complain("exercise " field["id"] " is marked twice"); next }
        kind = ("chunk" in field) ? "coding" : "written"
        if (kind == "coding" && !("tests" in field)) { complain("coding exercise needs tests"); next }
        for (k in field) if (field[k] == "") field[k] = "-"
        print field["id"], FILENAME, FNR, kind, ("chunk" in field) ? field["chunk"] : "-",
              field["title"], ("difficulty" in field) ? field["difficulty"] : "-",
              ("tests" in field) ? field["tests"] : "-"
    }
    END { exit bad }' "${web[@]}"
}
load() {
    local line
    line=$(markers | awk -F '\t' -v id="$1" '$1 == id')
    [[ -n "$line" ]] || die "no exercise named '$1'; 'make exercises' lists them"
    IFS=$'\t' read -r ex_id ex_file ex_line ex_kind ex_chunk ex_title ex_difficulty ex_tests \
        < <(echo "$line")
    [[ "$ex_kind" == coding ]] || die "'$1' is a written exercise; its answer is in the appendix"
    ex_chapter=$(basename "$ex_file" .nw)
    begin_key="BEGIN EXERCISE $ex_id:"
    end_key="END EXERCISE $ex_id */"
    begin_line="/* $begin_key replace the stub below by your code */"
    end_line="/* $end_key"
}

coding_ids() { markers | awk -F '\t' '$4 == "coding" { print $1 }'; }
stub_lines() {
    awk -v at="$ex_line" 'NR > at { if (/^%stub( |$)/) print substr($0, 7); else exit }' "$ex_file"
}

statement() {
    awk -v at="$ex_line" 'NR > at && !/^%stub( |$)/ { if (/^[ \t]*$/) exit; print }' "$ex_file"
}
check_hole() {
    local defs uses
    defs=$(cat "${web[@]}" | grep -c -F -x -- "<<$ex_chunk>>=" || true)
    uses=$(cat "${web[@]}" | grep -F -- "<<$ex_chunk>>" | grep -c -v -F -x -- "<<$ex_chunk>>=" || true)
    [[ $defs -eq 1 && $uses -eq 1 ]] ||
        die "$ex_id: chunk <<$ex_chunk>> is defined $defs times and used $uses times; want once each"
}
copy_web() {
    local dir=$1 holes=$2 f
    copied=()
    for f in "${web[@]}"; do
        mkdir -p "$dir/$(dirname "$f")"
        awk -v holes="$holes" '
            BEGIN { while ((getline h < holes) > 0) { t = index(h, "\t"); body[substr(h, 1, t - 1)] = substr(h, t + 1) } }
            skipping && (/^@( |$)/ || /^<<.*>>=$/) { skipping = 0 }
            skipping { next }
            { print }
            /^<<.*>>=$/ && (substr($0, 3, length($0) - 5) in body) {
                file = body[substr($0, 3, length($0) - 5)]
                while ((getline line < file) > 0) print line
                close(file); skipping = 1
            }' "$f" > "$dir/$f"
        copied+=("$dir/$f")
    done
}
tangle_into() {
    local dir=$1 root
    for root in $(noroots "${copied[@]}" | sed -n 's/^<<\[\[\(.*\)\]\]>>$/\1/p'); do
        case "$root" in src/*.[ch]|cmd/*.[ch]|book/*.[ch]|tests/*.[ch]|viz/*.[ch]) ;; *) continue ;; esac
        mkdir -p "$dir/$(dirname "$root")"
        notangle -R"[[$root]]" "${copied[@]}" > "$scratch/tangled"
        { echo "/* exercise $ex_id: tangled from the book; write only between the EXERCISE lines */"
          cat "$scratch/tangled"; } | cpif "$dir/$root"
    done
}
cmd_create() {
    load "$1"
    local dir=$2 d
    check_hole
    { echo "$begin_line"; stub_lines; echo "$end_line"; } > "$scratch/stub"
    printf '%s\t%s\n' "$ex_chunk" "$scratch/stub" > "$scratch/holes"
    copy_web "$scratch/web" "$scratch/holes"
    mkdir -p "$dir"
    tangle_into "$dir"
    region_file "$dir" > /dev/null || die "$ex_id: the stub is not in exactly one file"
    for d in tests/*/; do
        [[ -d "$d" ]] && mkdir -p "$dir/$d" && cp -pR "$d." "$dir/$d"
    done
    cpif "$dir/Makefile" < "$tools_dir/exercise-workspace.mk"
    printf 'EXERCISE := %s\nTESTS    := @(%s)\nBOOK_CFLAGS := %s\n' \
        "$ex_id" "${ex_tests//,/|}" "${EXERCISE_CFLAGS:-}" | cpif "$dir/exercise.mk"
    {
        echo "# Exercise $ex_id: $ex_title"
        echo
        echo "From chapter $ex_chapter of the book; difficulty $ex_difficulty of 3."
        echo
        statement | sed -e 's/\\paragraph{\([^}]*\)}/**\1**/; s/\\label{[^}]*}//g; s/\\texttt{\([^}]*\)}/`\1`/g' \
                        -e 's/\[\[/`/g; s/\]\]\]/]`/g; s/\]\]/`/g; s/\\emph{\([^}]*\)}/*\1*/g; s/~/ /g'
        echo
        echo "Write your code in \`$(region_file "$dir")\`, between the lines"
        echo
        echo "    $begin_line"
        echo "    $end_line"
        echo
        echo "which now hold a stub that makes the tests fail.  Only those lines are"
        echo "graded: keep both marker lines, and change nothing else."
        echo
        echo "    make test        # build, then run this exercise's tests: $ex_tests"
        echo "    make all-tests   # every test of the book"
    } | cpif "$dir/README.md"
}
region_file() {
    local files
    files=$(cd "$1" && grep -rlF -- "$begin_key" src tests viz 2>/dev/null || true)
    [[ -n "$files" && "$files" != *$'\n'* ]] || return 1
    echo "$files"
}
splice() {
    local file=$1 lines=$2 indent=$3
    awk -v key="$begin_key" -v end_key="$end_key" -v lines="$lines" -v indent="$indent" '
        skipping && index($0, end_key) { skipping = 0 }
        skipping { next }
        { print }
        index($0, key) {
            pad = indent == "marker" ? substr($0, 1, index($0, "/*") - 1) : ""
            while ((getline line < lines) > 0) print (line == "" ? "" : pad line)
            skipping = 1
        }' "$file" > "$scratch/spliced"
    cpif "$file" < "$scratch/spliced"
}

region() {
    awk -v key="$begin_key" -v end_key="$end_key" '
        index($0, end_key) && inside { inside = 0; found = 1 }
        inside { print }
        index($0, key) { inside = 1 }
        END { exit !found }' "$1"
}
solution() {
    printf '<<exercise solution>>=\n<<%s>>\n@\n' "$ex_chunk" > "$scratch/solution.nw"
    notangle -R"exercise solution" "${web[@]}" "$scratch/solution.nw"
}

cmd_solve() {
    load "$1"
    local dir=$2 file
    file=$(region_file "$dir") || die "$dir has no markers of exercise $ex_id"
    solution > "$scratch/solution"
    splice "$dir/$file" "$scratch/solution" marker
}
cmd_check() {
    local dir=$2 work=${3:-build/exercise-check/$1} file mine note=""
    local tested=0 passed=0 failed=0 crashed=0 verdict=FAIL
    [[ -d "$dir" ]] || die "no directory $dir"
    cmd_create "$1" "$work"
    file=$(region_file "$work")
    if mine=$(region_file "$dir") && region "$dir/$mine" > "$scratch/region"; then
        splice "$work/$file" "$scratch/region" none
        if make -C "$work" --no-print-directory -j2 WERROR="${EXERCISE_WERROR:-}" build/tests build/mha \
                $([[ -d "$work/viz" ]] && echo build/viz-tests) > "$work/build.log" 2>&1; then
            make -C "$work" --no-print-directory test > "$work/test.log" 2>&1 || true
            read -r tested passed failed crashed < <(sed 's/\x1b\[[0-9;]*m//g' "$work/test.log" |
                sed -n 's/.*Synthesis: Tested: \([0-9]*\) | Passing: \([0-9]*\) | Failing: \([0-9]*\) | Crashing: \([0-9]*\).*/\1 \2 \3 \4/p' |
                awk '{ for (i = 1; i <= 4; i++) n[i] += $i } END { print n[1] + 0, n[2] + 0, n[3] + 0, n[4] + 0 }')
        else
            note="the code does not compile; see $work/build.log"
        fi
    else
        note="the BEGIN and END EXERCISE $ex_id lines are missing or damaged"
    fi
    [[ -z "$note" && $tested -gt 0 && $passed -eq $tested ]] && verdict=PASS
    echo "exercise $ex_id: $ex_title ($ex_chapter, difficulty $ex_difficulty)"
    echo "  graded:  lines between the EXERCISE markers of ${mine:-?} in $dir"
    echo "  tests:   $tested run, $passed passed, $failed failed, $crashed crashed  ($ex_tests)"
    [[ -z "$note" ]] || echo "  note:    $note"
    echo "  verdict: $verdict"
    echo "$tested $passed $failed $crashed $verdict" > "$work/verdict"
    [[ $verdict == PASS ]]
}
cmd_list() {
    markers | awk -F '\t' '
        NR == 1 { printf "%-20s %-13s %-7s %-4s %-46s %s\n", "exercise", "chapter", "kind", "diff", "title", "tests" }
        { chapter = $2; sub(/.*\//, "", chapter); sub(/\.nw$/, "", chapter)
          printf "%-20s %-13s %-7s %-4s %-46s %s\n", $1, chapter, $4, $7, $6,
                 $4 == "coding" ? $8 : "(answer in the appendix)" }'
}
cmd_verify() {
    local ids=("$@") id
    [[ ${#ids[@]} -gt 0 ]] || ids=($(coding_ids))
    for id in $(markers | awk -F '\t' '$4 == "written" { print $1 }'); do
        grep -qF -- "\\label{ans:$id}" "${web[@]}" ||
            die "written exercise $id has no answer labelled ans:$id"
    done
    for id in "${ids[@]}"; do
        verify_one "$id"
    done
}
verify_one() {
    local root=build/exercises-verify/$1 tested passed failed crashed verdict
    rm -rf "$root/student"
    cmd_create "$1" "$root/student"
    solution | sed 's/^[[:space:]]*//' | awk 'length >= 12' |
        sort -u > "$scratch/lines"
    local line distinctive=0
    while IFS= read -r line; do
        [[ $(grep -rhF -- "$line" src tests viz 2>/dev/null | wc -l) -eq 1 ]] || continue
        distinctive=$((distinctive + 1))
        ! grep -rqF -- "$line" "$root/student" || die "$1: the workspace holds the solution's line: $line"
    done < "$scratch/lines"
    [[ $distinctive -gt 0 ]] || die "$1: no line of the solution is distinctive enough to look for"
    EXERCISE_WERROR=-Werror cmd_check "$1" "$root/student" "$root/work" > "$root/stub.txt" || true
    read -r tested passed failed crashed verdict < "$root/work/verdict"
    [[ $verdict == FAIL && $tested -gt 0 && $failed -gt 0 && $crashed -eq 0 ]] ||
        { cat "$root/stub.txt"; die "$1: the stub must build and fail a test without crashing"; }
    local stub="$failed of $tested tests fail"
    cmd_solve "$1" "$root/student"
    EXERCISE_WERROR=-Werror cmd_check "$1" "$root/student" "$root/work" > "$root/solved.txt" ||
        { cat "$root/solved.txt"; die "$1: the book's own solution does not pass"; }
    echo "verify: $1: stub builds, $stub, none crash; the book's solution passes them"
}
cmd_student_web() {
    local dir=$1 id name n=0
    : > "$scratch/holes"
    for id in $(coding_ids); do
        load "$id"
        printf '%s\n' "$ex_chunk" > "$scratch/private"
        local before=0
        while [[ $(wc -l < "$scratch/private") -gt $before ]]; do
            before=$(wc -l < "$scratch/private")
            cat "${web[@]}" | awk -v list="$scratch/private" '
                BEGIN { while ((getline l < list) > 0) private[l] = 1 }
                /^<<.*>>=$/ { inside = substr($0, 3, length($0) - 5) in private; next }
                /^@( |$)/ { inside = 0 }
                inside { s = $0
                         while ((i = index(s, "<<")) > 0) {
                             if (i > 1 && substr(s, i - 1, 1) == "@") { s = substr(s, i + 2); continue }
                             s = substr(s, i + 2); j = index(s, ">>")
                             if (j == 0) break
                             print substr(s, 1, j - 1); s = substr(s, j + 2) } }' |
            sort -u | while IFS= read -r name; do
                [[ $(cat "${web[@]}" | grep -F -- "<<$name>>" | grep -c -v -F -x -- "<<$name>>=") -eq 1 ]] &&
                    ! grep -qxF -- "$name" "$scratch/private" && echo "$name"
            done >> "$scratch/private.new" || true
            cat "$scratch/private.new" >> "$scratch/private" && : > "$scratch/private.new"
        done
        while IFS= read -r name; do
            n=$((n + 1))
            echo "(your code here: exercise $id)" > "$scratch/hole-$n"
            printf '%s\t%s\n' "$name" "$scratch/hole-$n" >> "$scratch/holes"
        done < "$scratch/private"
    done
    copy_web "$dir" "$scratch/holes"
    printf '%s\n' "${copied[@]}"
}
case "${1:-}" in
    list)        cmd_list ;;
    create)      [[ $# -eq 3 ]] || die "usage: create ID DIR";        cmd_create "$2" "$3" ;;
    solve)       [[ $# -eq 3 ]] || die "usage: solve ID DIR";         cmd_solve "$2" "$3" ;;
    check)       [[ $# -ge 3 ]] || die "usage: check ID DIR [WORK]";  cmd_check "$2" "$3" "${4:-}" ;;
    verify)      shift; cmd_verify "$@" ;;
    student-web) [[ $# -eq 2 ]] || die "usage: student-web DIR";      cmd_student_web "$2" ;;
    *)           die "usage: exercise.sh list|create|solve|check|verify|student-web ..." ;;
esac
