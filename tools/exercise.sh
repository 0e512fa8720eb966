# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise.sh COMMAND ARGS: the book's exercises (the exercises appendix).
#   list | create ID DIR | handout ID DIR | solve ID DIR | check ID DIR [WORK]
#   | verify [ID...] | grade ID SUBMISSIONS OUT | hint ID N | sheet FILE | student-web DIR
# NW must hold the web's files in reading order.
set -eu -o pipefail
: "${NW:?exercise.sh: set NW to the files of the web, in reading order}"
read -r -a web < <(echo "$NW")
tools_dir=$(dirname "$0")
source "$tools_dir/exercise-verdict.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "exercise: $*" >&2; exit 2; }
cpif() {
    local new
    new=$(mktemp -p "$scratch") && chmod 644 "$new"    # a new file is readable, as a handout's are
    cat > "$new"
    cmp -s "$new" "$1" || cp "$new" "$1"
    rm -f "$new"
}
libm_names='exp|exp2|expm1|log|log2|log10|log1p|sqrt|cbrt|pow|fabs|fmax|fmin|fma|floor|ceil'
libm_names+='|round|lround|trunc|rint|nearbyint|hypot|erf|erfc|copysign|nextafter|ldexp|frexp'
libm_names+='|fmod|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh'
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
        if (!("id" in field) || !("title" in field)) {
            complain("marker needs id and title"); next }
        if (seen[field["id"]]++) { complain("exercise " field["id"] " is marked twice"); next }
        kind = ("chunk" in field) ? "coding" : "written"
        if (kind == "coding" && !("tests" in field)) {
            complain("coding exercise needs tests"); next }
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
    ex_chapter=$(chapter_name "$ex_file")      # the chapter's name, as the book prints it
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
    awk -v at="$ex_line" 'NR > at && !/^%/ { if (/^[ \t]*$/) exit; print }' "$ex_file"
}
marker_lines() {
    awk -v at="$ex_line" 'NR > at { if (/^%/) print; else exit }' "$ex_file"
}

wrong_names() { marker_lines | sed -n 's/^%wrong \([A-Za-z0-9-]*\).*/\1/p'; }

right_names() { marker_lines | sed -n 's/^%right \([A-Za-z0-9-]*\).*/\1/p'; }
wrong_answer() { # NAME [KIND]: the lines of the known-wrong (or, KIND right, known-right) answer
    marker_lines | awk -v name="$1" -v kind="%${2:-wrong}" '
        /^%(wrong|right) / { inside = ($1 == kind && $2 == name); next }
        inside && /^%\|/ { print substr($0, 4); next }
        { inside = 0 }'
}

hints() { marker_lines | sed -n 's/^%hint //p'; }
records() { marker_lines | sed -n 's/^%record //p'; }
wrapped() { marker_lines | sed -n 's/^%wrap //p'; }
cases() { marker_lines | sed -n 's/^%case //p'; }

cmd_hint() {
    load "$1"
    local count
    count=$(hints | wc -l)
    [[ $count -gt 0 ]] || die "exercise $1 has no hints"
    [[ "$2" =~ ^[0-9]+$ && $2 -ge 1 && $2 -le $count ]] || die "exercise $1 has hints 1 to $count"
    echo "exercise $1, hint $2 of $count:"
    hints | sed -n "$2p" | latex_to_text | fold -s -w 76 | sed 's/^/    /'
}
check_hole() {
    local defs uses
    defs=$(cat "${web[@]}" | grep -c -F -x -- "<<$ex_chunk>>=" || true)
    uses=$(cat "${web[@]}" | grep -F -- "<<$ex_chunk>>" |
           grep -c -v -F -x -- "<<$ex_chunk>>=" || true)
    [[ $defs -eq 1 && $uses -eq 1 ]] || die "$ex_id: chunk <<$ex_chunk>> is defined $defs times" \
        "and used $uses times; want once each"
}
copy_web() {
    local dir=$1 holes=$2 f
    copied=()
    for f in "${web[@]}"; do
        mkdir -p "$dir/$(dirname "$f")"
        awk -v holes="$holes" '
            BEGIN { while ((getline h < holes) > 0) {
                        t = index(h, "\t"); body[substr(h, 1, t - 1)] = substr(h, t + 1) } }
            /^%right / { right = 1; next }
            right && /^%\|/ { next }
            { right = 0 }
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
    local dir=$1 out=$scratch/tangled root noweb_lib
    local -a roots dirs=()
    noweb_lib=$(sed -n 's/^LIB=//p' "$(command -v notangle)")
    roots=($(noroots "${copied[@]}" | sed -n 's/^<<\[\[\([^] ]*\)\]\]>>$/\1/p'))
    rm -rf "$out"
    for root in "${roots[@]}"; do
        [[ $root == */* ]] || continue
        dirs+=("$out/${root%/*}")
        case "$root" in
            src/*|learn/*|io/*|cmd/*|tables/*|tests/*|viz/*) dirs+=("$dir/${root%/*}") ;;
        esac
    done
    mkdir -p "$out" "${dirs[@]}"
    "$noweb_lib/markup" "${copied[@]}" | sed -E 's/^@(defn|use) \[\[([^] ]+)\]\]$/@\1 \2/' |
        (cd "$out" && "$noweb_lib/mnt" -t -all) || die "$ex_id: the copied web does not tangle"
    local banner="/* exercise $ex_id: tangled from the book;"
    banner+=" write only between the EXERCISE lines */"
    printf '%s\n' "${roots[@]}" | awk -v out="$out" -v dir="$dir" -v banner="$banner" '
        !/^(src|learn|io|cmd|tables|tests|viz)\/.*\.[ch]$/ { next }
        {   text = banner "\n"
            while ((getline line < (out "/" $0)) > 0) text = text line "\n"
            close(out "/" $0)
            old = ""
            while ((getline line < (dir "/" $0)) > 0) old = old line "\n"
            close(dir "/" $0)
            if (text != old) { printf "%s", text > (dir "/" $0); close(dir "/" $0) }
        }'
}
cmd_create() {
    load "$1"
    local dir=$2 mode=${3:-grading} d
    check_hole
    { echo "$begin_line"; stub_lines; echo "$end_line"; } > "$scratch/stub"
    printf '%s\t%s\n' "$ex_chunk" "$scratch/stub" > "$scratch/holes"
    : > "$scratch/helpers"
    [[ $mode != handout ]] || replace_by_calls "$1" >> "$scratch/holes"
    copy_web "$scratch/web" "$scratch/holes"
    mkdir -p "$dir"
    rm -rf "$dir/withheld"
    tangle_into "$dir"
    region_file "$dir" > /dev/null || die "$ex_id: the stub is not in exactly one file"
    for d in tests/*/; do
        [[ -d "$d" ]] && mkdir -p "$dir/$d" && cp -pR "$d." "$dir/$d"
    done
    mkdir -p "$dir/figures/runs" && cp -p figures/*.tsv figures/austen-*.txt figures/circuit-*.txt \
        figures/pieces-*.txt \
        figures/bench-lm.txt figures/lm-profile.txt "$dir/figures/" &&
        cp -p figures/runs/* "$dir/figures/runs/"
    mkdir -p "$dir/models" && cp -pR models/induction models/austen "$dir/models/"
    mkdir -p "$dir/tools" && cp -p tools/heads-study.sh "$dir/tools/"
    cpif "$dir/Makefile" < "$tools_dir/exercise-workspace.mk"
    cpif "$dir/tests/reached_end.c" < "$tools_dir/exercise-reached-end.c"
    cpif "$dir/tools/exercise-verdict.sh" < "$tools_dir/exercise-verdict.sh"
    cpif "$dir/tools/exercise-test.sh" < "$tools_dir/exercise-test.sh"
    [[ "$(region_file "$dir")" == viz/* ]] || rm -rf "$dir/viz" "$dir/tests/viz"
    printf 'EXERCISE := %s\nTESTS    := @(%s)\nBOOK_CFLAGS := %s\nGRADED   := %s\n' \
        "$ex_id" "${ex_tests//,/|}" "${EXERCISE_CFLAGS:-}" "$(region_file "$dir")" |
        cpif "$dir/exercise.mk"
    hints | latex_to_text | cpif "$dir/hints.txt"
    local chapter place
    chapter=$(chapter_name "$ex_file")
    place=$(sed -n "s/^\\\\newlabel{ex:$ex_id}{{\([^}]*\)}{\([^}]*\)}.*/exercise \1, page \2/p" \
                "${BUILD:-build}/student/book-student.aux" 2>/dev/null | head -1 || true)
    [[ -n "$place" ]] || place="among the exercises at the end of that chapter"
    {
        echo "# Exercise $ex_id: $ex_title"
        echo
        echo "From the chapter \"$chapter\" of *Multi-Head Attention, from the Ground Up*"
        echo "(the student's edition: $place); difficulty $ex_difficulty of 3."
        echo
        statement | latex_to_text
        echo
        echo "Write your code in \`$(region_file "$dir")\`, between the lines"
        echo
        echo "    $begin_line"
        echo "    $end_line"
        echo
        echo "which now hold a stub that makes the tests fail.  Only those lines are"
        echo "graded: keep both marker lines, and change nothing else."
        echo
        echo "    make test        # build, then run this exercise's tests one at a time,"
        echo "                     # read as the grader reads them: $ex_tests"
        echo "    make all-tests   # every test of the book"
        echo "    make hint N=1    # the first of $(hints | wc -l) hints; N=2 gives away more"
        echo "    make submit      # copies the one graded file to submit/$ex_id.c: hand that in"
        if [[ $mode == handout ]]; then
            echo
            echo "The book's files that would give an answer away are here only compiled,"
            echo "in \`withheld/\`; the Makefile links them in place of their sources."
        fi
    } | cpif "$dir/README.md"
    if [[ $mode == handout ]]; then
        rm -f "$dir/tests/test_held_out.c"
        withhold "$dir"
        check_clean "$dir"
    else
        mkdir -p "$dir/.screen"
        add_records "$dir"
        region_file "$dir" > "$dir/.screen/place"
        cp "$dir/$(cat "$dir/.screen/place")" "$dir/.screen/pristine"
        web_key > "$dir/.screen/created"
    fi
}

web_key() {
    { echo "$ex_id"; cat "${web[@]}" "$tools_dir/exercise-workspace.mk" \
          "$tools_dir/exercise-reached-end.c" "$tools_dir/exercise-record.c"; } |
        sha256sum | cut -c1-64
}
cmd_handout() {
    local dir=$2
    if [[ -d "$dir" && -n "$(ls -A "$dir")" ]]; then
        [[ -f "$dir/.exercise-sums" ]] &&
            (cd "$dir" && sha256sum --quiet -c .exercise-sums > /dev/null 2>&1) ||
            die "$dir holds edits, or is not an untouched workspace: not overwriting it" \
                "(remove it, or give another DIR)"
    fi
    cmd_create "$1" "$dir" handout
    (cd "$dir" && find . -path ./build -prune -o -type f ! -name .exercise-sums -print0 | sort -z |
        xargs -0 sha256sum > .exercise-sums)
}
region_file() {
    local files
    files=$(cd "$1" && grep -rlF -- "$begin_key" src learn io tests viz 2>/dev/null || true)
    [[ -n "$files" && "$files" != *$'\n'* ]] || return 1
    echo "$files"
}
chapter_name() {
    local f files=()
    for f in "${web[@]}"; do
        files+=("$f")
        [[ "$f" == "$1" ]] && break
    done
    [[ "${files[-1]}" == "$1" ]] || files=("$1")
    awk -v target="$1" '/^\\chapter/ {
        s = substr($0, 9)
        if (substr(s, 1, 1) == "[") { s = substr(s, 2); s = substr(s, 1, index(s, "]") - 1) }
        else {
            s = substr(s, 2); depth = 1
            for (i = 1; i <= length(s) && depth > 0; i++) {
                c = substr(s, i, 1); depth += (c == "{") - (c == "}") }
            s = substr(s, 1, i - 2)
        }
        gsub(/\\\\/, " ", s); gsub(/  +/, " ", s); name = s
        if (FILENAME == target) { found = 1; exit } }
        END { print name }' "${files[@]}"
}
latex_to_text() {
    sed -e 's/\\exercisehead{[^}]*}{[^}]*}//; s/\\index{[^}]*}//g' \
        -e 's/\\paragraph{[^}]*{[^}]*}[^}]*}//; s/\\paragraph{[^}]*}//; s/\\label{[^}]*}//g' \
        -e 's/\\texttt{\([^}]*\)}/`\1`/g; s/\\emph{\([^}]*\)}/*\1*/g' \
        -e 's/\\file{\([^}]*\)}/`\1`/g' \
        -e 's/\[\[/`/g; s/\]\]\]/]`/g; s/\]\]/`/g' \
        -e 's/\(Chapter\|Appendix\)~\\ref{[a-z]*:\([^}]*\)}/the chapter "\2"/g; s/~/ /g' \
        -e 's/\\infty/infinity/g; s/\\mathrm{\([^}]*\)}/\1/g' \
        -e 's/\([a-z0-9]\)\\ell\b/\1*ell/g; s/\\ell\b/ell/g' \
        -e 's/\\sum/sum/g; s/\\dots/.../g; s/\\ge\b/>=/g; s/\\le\b/<=/g; s/\\,/ /g' \
        -e 's/_{\([^}]*\)}/_\1/g; s/\\sqrt/sqrt/g' \
        -e 's/\$\([^$]*\)\$/\1/g; s/---/--/g; s/\\[a-zA-Z]*{\([^}]*\)}/\1/g' \
        -e 's/\\cdot/*/g; s/\\[lc]\?dots/.../g; s/\\[,;!]//g; s/\\\(hat\|bar\) *\([a-zA-Z]\)/\2\1/g' \
        -e 's/\^{\([^}]*\)}/^(\1)/g; s/\\\([a-zA-Z]*\)/\1/g; s/[{}]//g' |
        sed '/^[[:space:]]*$/d'
}
all_giveaways() {
    local id
    awk '/^%exercise / { match($0, /id=[A-Za-z0-9-]+/); id = substr($0, RSTART + 3, RLENGTH - 3)
                         inside = 1; next }
         inside && /^%giveaway / { print id "\t" substr($0, 11); next }
         inside && /^%/ { next }
         { inside = 0 }' "${web[@]}"
    for id in $(coding_ids); do
        (load "$id" && solution) | telltale_lines | sed "s/^/$id\t/"
    done
}

telltale_lines() {
    local line
    sed 's/^[[:space:]]*//' | awk 'length >= 12' | sort -u | while IFS= read -r line; do
        [[ $(grep -rhF -- "$line" src learn io cmd tables tests viz 2>/dev/null | wc -l) -ne 1 ]] ||
            echo "$line"
    done
}
replace_by_calls() {
    local id elsewhere
    for id in $(coding_ids); do
        [[ $id != "$1" ]] || continue
        (
            load "$id"
            elsewhere=$(marker_lines | sed -n 's/^%elsewhere //p')
            [[ -n "$elsewhere" ]] || exit 0
            printf '/* exercise %s: the book%ss code is given compiled, in withheld/ */\n%s\n' \
                "$id" "'" "$elsewhere" > "$scratch/elsewhere-$id"
            solution | sed 's/^/    /' > "$scratch/solution-$id"
            marker_lines | sed -n 's/^%helper //p' | awk -v body="$scratch/solution-$id" '
                $0 == "@solution" { while ((getline line < body) > 0) print line; next }
                { print }' > "$scratch/helper-$id"
            echo "$id" >> "$scratch/helpers"
            printf '%s\t%s\n' "$ex_chunk" "$scratch/elsewhere-$id"
        )
    done
}
withhold() {
    local dir=$1 mine id call rel
    mine=$(region_file "$dir")
    if [[ -s ${EXERCISE_GIVEAWAYS:-} ]]; then
        cp "$EXERCISE_GIVEAWAYS" "$scratch/giveaways"
    else
        all_giveaways > "$scratch/giveaways"
    fi
    cut -f 2- "$scratch/giveaways" | grep -v '^$' > "$scratch/giveaway-strings"
    : > "$scratch/withheld"
    while IFS= read -r id; do
        call=$(cd "$dir" && grep -rlF -- "/* exercise $id: the book's code" \
                   src learn io cmd tables tests viz 2>/dev/null || true)
        [[ -n "$call" ]] || die "$ex_id: the call to the compiled answer of $id is missing"
        rel="$(dirname "$call")/exercise_${id//-/_}.c"
        { grep '^#include' "$dir/$call"; echo; cat "$scratch/helper-$id"; } > "$dir/$rel"
        echo "$rel" >> "$scratch/withheld"
    done < "$scratch/helpers"
    (cd "$dir" && grep -rlIF -f "$scratch/giveaway-strings" src learn io cmd tables tests viz \
        2>/dev/null || true) |
        { grep -vxF -- "$mine" || true; } >> "$scratch/withheld"
    solution | normalised > "$scratch/own-body"
    if [[ $(wc -c < "$scratch/own-body") -ge 40 ]]; then
        perl -0777 -ne "$holding" "$scratch/own-body" "$mine" | grep -q . ||
            die "$ex_id: the search for its answer does not find it in the book's own $mine"
        (cd "$dir" && find src learn io cmd tables tests viz -name '*.[ch]' -print0 2>/dev/null |
            xargs -0 -r perl -0777 -ne "$holding" "$scratch/own-body" || true) |
            { grep -vxF -- "$mine" || true; } >> "$scratch/withheld"
    fi
    sort -u -o "$scratch/withheld" "$scratch/withheld"
    while IFS= read -r rel; do
        [[ "$rel" == *.c ]] ||
            die "$ex_id: $rel gives an answer away, and only a C source can be given compiled"
    done < "$scratch/withheld"
    make -C "$dir" --no-print-directory -j2 $(sed 's|^\(.*\)\.c$|build/obj/\1.o|' "$scratch/withheld") \
        > "$scratch/withheld.log" 2>&1 ||
        { cat "$scratch/withheld.log" >&2; die "$ex_id: cannot compile a withheld file"; }
    while IFS= read -r rel; do
        mkdir -p "$dir/withheld/$(dirname "$rel")"
        objcopy --strip-debug "$dir/build/obj/${rel%.c}.o" "$dir/withheld/${rel%.c}.o"
        if [[ $rel == tests/*.c ]]; then                # its tests' names stay, for make test
            grep -oE '^Test\( *[A-Za-z0-9_]+ *, *[A-Za-z0-9_]+' "$dir/$rel" \
                > "$dir/${rel%.c}.names" || true
        fi
        rm -f "$dir/$rel"
    done < "$scratch/withheld"
    rm -rf "$dir/build"
}
normalise='s{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s/\s+//g'
normalised() { perl -0777 -pe "$normalise" "$@"; }
holding='BEGIN { $body = do { local $/; open my $f, "<", shift @ARGV or die; <$f> } }
         '"$normalise"'; print "$ARGV\n" if index($_, $body) >= 0'
check_clean() {
    local dir=$1 id text where object
    if (cd "$dir" && grep -rqIF --exclude-dir=build -f "$scratch/giveaway-strings" .); then
        while IFS=$'\t' read -r id text; do
            [[ -n "$text" ]] || continue
            where=$(cd "$dir" && grep -rlIF --exclude-dir=build -- "$text" . | head -1 || true)
            [[ -z "$where" ]] ||
                die "$ex_id: the workspace gives the answer of $id away in $where: $text"
        done < "$scratch/giveaways"
    fi
    if [[ $(wc -c < "$scratch/own-body") -ge 40 ]]; then
        where=$(find "$dir" -path "$dir/build" -prune -o -type f \( -name '*.[ch]' -o \
                     -name '*.md' -o -name '*.txt' -o -name '*.sh' -o -name '*.mk' \) -print0 |
                xargs -0 -r perl -0777 -ne "$holding" "$scratch/own-body" | head -1 || true)
        [[ -z "$where" ]] || die "$ex_id: the workspace holds its own answer in ${where#"$dir"/}"
    fi
    while IFS= read -r -d '' object; do
        ! objdump -h "$object" | grep -q '\.debug' ||
            die "$ex_id: $object keeps its debugging information"
    done < <(find "$dir/withheld" -name '*.o' -print0 2>/dev/null)
    clean_count=$(wc -l < "$scratch/giveaways")
    withheld_count=$(find "$dir/withheld" -name '*.o' 2>/dev/null | wc -l)
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
work_for() {
    local where
    where=$(cd "$2" 2>/dev/null && pwd -P) || where=$2
    echo "build/exercise-check/$1/$(basename "$where")-$(printf '%s' "$where" | cksum |
                                                          cut -d' ' -f1)"
}

cmd_check() {
    local dir=$2 work=${3:-} file mine note="" lock
    local tested=0 passed=0 failed=0 crashed=0 verdict=FAIL
    [[ -d "$dir" ]] || die "no directory $dir"
    [[ -n "$work" ]] || work=$(work_for "$1" "$dir")
    mkdir -p "$work" && work=$(cd "$work" && pwd)
    exec {lock}> "$work.lock"
    flock "$lock"
    load "$1"
    if [[ "$(cat "$work/.screen/created" 2>/dev/null)" == "$(web_key)" ]]; then
        cpif "$work/$(cat "$work/.screen/place")" < "$work/.screen/pristine"
    else
        cmd_create "$1" "$work"
    fi
    local g=$work.grade                         # the grader's own: the sandbox never sees it
    rm -rf "$g" && mkdir -m 700 "$g" && : > "$g/results.tsv"
    find "$work" "$work/tests" -maxdepth 1 ! -type d ! -type f -delete 2> /dev/null || true
    file=$(region_file "$work")
    graded_tests "$work" > "$g/graded"
    records > "$scratch/records"
    if mine=$(region_file "$dir") && region "$dir/$mine" > "$scratch/region"; then
        note=$(screen_hole < "$scratch/region")
        [[ -n "$note" ]] || note=$(sandbox_note)
        [[ ${EXERCISE_UNSCREENED:-} != 1 || $note == *namespaces* ]] || note=""
        if [[ -z "$note" ]]; then
            [[ $(id -u) != 0 || ${EXERCISE_TRUSTED:-} == 1 ]] || chmod -R a+rwX "$work"
            reference_records "$work" "$file" "${EXERCISE_REFERENCE:-$work.reference}" "$g/graded"
            allowed_symbols "$work" "$file"
            splice "$work/$file" "$scratch/region" none
            note=$(screen_object "$work" "$file")
            [[ ${EXERCISE_UNSCREENED:-} != 1 ]] || note=""
        fi
        if [[ -z "$note" ]]; then
            touch "$work/.screen/graded"
            local programs=(tests) program name outcome message
            [[ -d "$work/viz" ]] && programs+=(viz-tests)
            if sandboxed "$work" . "${EXERCISE_BUILD_LIMIT:-600}" make --no-print-directory -j2 \
                    WERROR="${EXERCISE_WERROR:-}" "${programs[@]/#/build/}" build/mha \
                    > "$g/build.log" 2>&1 < /dev/null; then
                local budget=${EXERCISE_TOTAL_LIMIT:-$((5 * ${EXERCISE_TIME_LIMIT:-60}))} limit
                SECONDS=0
                while IFS=$'\t' read -r program name; do
                    limit=$(( budget - SECONDS < ${EXERCISE_TIME_LIMIT:-60} ? budget - SECONDS
                                                                           : ${EXERCISE_TIME_LIMIT:-60} ))
                    if [[ $limit -gt 0 ]]; then
                        run_test "$work" "$program" "$name" "$limit"
                    else
                        outcome=not-run; message="not run: the hand-in used up its $budget s"
                    fi
                    printf '%s\t%s\t%s\n' "$name" "$outcome" "$message" >> "$g/results.tsv"
                done < "$g/graded"
                read -r tested passed failed crashed < <(awk -F '\t' '
                    { n++; if ($2 == "pass") p++; else if ($2 == "crash") c++; else f++ }
                    END { print n + 0, p + 0, f + 0, c + 0 }' "$g/results.tsv")
                [[ $tested -gt 0 ]] || note="no graded test was found"
            else
                note="the code does not compile ($(grep -m1 -E 'error:|Terminated|Killed' "$g/build.log" |
                    sed 's|^[^:]*/\([^/:]*:[0-9]*:\)|\1|' || echo "no message"))"
            fi
        fi
    else
        note="the BEGIN and END EXERCISE $ex_id lines are missing or damaged"
    fi
    [[ -z "$note" && $tested -gt 0 && $passed -eq $tested ]] && verdict=PASS
    echo "exercise $ex_id: $ex_title (chapter \"$ex_chapter\", difficulty $ex_difficulty)"
    echo "  graded:  lines between the EXERCISE markers of ${mine:-?}"
    echo "  tests:   $tested run, $passed passed, $failed failed, $crashed crashed  ($ex_tests)"
    awk -F '\t' '$2 != "pass" { printf "  %-7s  %s: %s\n", $2 ":", $1, $3 }' "$g/results.tsv" |
        head -8
    [[ -z "$note" ]] || echo "  note:    $note"
    [[ -n ${EXERCISE_GRADING:-} ]] || echo "  log:     $g"
    echo "  verdict: $verdict"
    echo "$tested $passed $failed $crashed $verdict" > "$g/verdict"
    exec {lock}>&-
    [[ $verdict == PASS ]]
}
screen_hole() {
    awk '
    function refuse(why) { if (reason == "") reason = why }
    { text = text $0 "\n"
      if (/\\[ \t]*$/) refuse("a line ends with a backslash, which joins it to the next")
      if (index($0, "??")) refuse("two question marks in a row make a trigraph") }
    END {
        n = length(text)
        for (i = 1; i <= n && reason == ""; i++) {
            c = substr(text, i, 1); two = substr(text, i, 2)
            if (two == "/*") {
                j = index(substr(text, i + 2), "*/")
                if (j == 0) { refuse("a comment is left open"); break }
                i += j + 2; code = code " "; continue
            }
            if (two == "//") {
                j = index(substr(text, i), "\n"); i += j - 1; code = code "\n"; continue
            }
            if (c == "\"" || c == "\047") {
                for (i++; i <= n; i++) {
                    d = substr(text, i, 1)
                    if (d == "\\") { i++; continue }
                    if (d == c || d == "\n") break
                }
                if (d != c) { refuse("a string or character constant is left open"); break }
                code = code " 0 "; continue
            }
            code = code c
        }
        if (reason == "" && (index(code, "#") || index(code, "%:")))
            refuse("a preprocessor line: the hole holds C statements only")
        for (i = 1; i <= length(code) && reason == ""; i++) {
            two = substr(code, i, 2); c = substr(code, i, 1)
            if (c == "{" || two == "<%") depth++
            if (c == "}" || two == "%>") depth--
            if (depth < 0) refuse("a closing brace ends the function early, putting code outside it")
        }
        if (reason == "" && depth != 0) refuse("the braces do not balance")
        words = code; gsub(/[^A-Za-z0-9_]+/, " ", words); m = split(words, word, " ")
        for (i = 1; i <= m && reason == ""; i++)
            if (word[i] ~ /^(asm|__asm|__asm__|__attribute|__attribute__|_Pragma|__declspec)$/ ||
                word[i] ~ /^__builtin_(frame_address|return_address|dwarf_cfa|stack_address)$/ ||
                word[i] ~ /^__builtin_(extract|frob)_return_addr$/)
                refuse("the word " word[i] " reaches past C statements")
        if (reason != "") print reason
    }'
}
screen_compile() {
    local work=$1 file=$2 source=$3 object=$4 viz=()
    [[ $file != viz/* ]] || viz=(-Iviz $(pkg-config --cflags sdl2 SDL2_ttf SDL2_image))
    (cd "$work" && "${CC:-cc}" -std=c11 -D_POSIX_C_SOURCE=200809L -iquote "$(dirname "$file")" \
        -Isrc -Ilearn -Iio -Icmd -Itables -Itests "${viz[@]}" ${EXERCISE_CFLAGS:-} -O0 \
        -fno-inline -ffunction-sections -fdata-sections -w -c -x c "$source" -o "$object")
}

references() {
    readelf -rW "$1" | awk -v OFS='\t' '
        /^Relocation section/ { section = $3; gsub(/\047/, "", section); next }
        $1 ~ /^[0-9a-f]+$/ && NF >= 5 && $5 !~ /^\./ { print section, $5 }' | sort -u
}

defined_symbols() { nm --defined-only "$1" | awk -v OFS='\t' '{ print $2, $3 }' | sort -u; }
section_names() { readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' | sort -u; }

allowed_symbols() {
    local work=$1 file=$2 at=$1/.screen key
    mkdir -p "$at"
    key=$(cat "$work/$file" <(solution) | sha256sum | cut -c1-64)
    [[ "$(cat "$at/key" 2>/dev/null)" != "$key" ]] || return 0
    screen_compile "$work" "$file" "$work/$file" "$at/stub.o" ||
        die "$ex_id: the stub does not compile alone"
    references "$at/stub.o" > "$at/stub.refs"
    defined_symbols "$at/stub.o" > "$at/stub.defs"
    section_names "$at/stub.o" > "$at/stub.sections"
    cp "$work/$file" "$at/solved.c"
    solution > "$scratch/solution"
    splice "$at/solved.c" "$scratch/solution" marker
    screen_compile "$work" "$file" "$at/solved.c" "$at/solved.o" ||
        die "$ex_id: the book's answer does not compile alone"
    { references "$at/solved.o" | comm -13 "$at/stub.refs" - | cut -f 2
      marker_lines | sed -n 's/^%allow //p' | tr ' ' '\n'
      awk -F '\t' '$1 ~ /^t$/ { print $2 }' "$at/stub.defs"
    } | sort -u | sed '/^$/d' > "$at/allowed"
    echo "$key" > "$at/key"
}

screen_object() {
    local work=$1 file=$2 at=$1/.screen name
    screen_compile "$work" "$file" "$work/$file" "$at/student.o" 2> "$at/student.log" || {
        echo "the code does not compile ($(grep -m1 'error:' "$at/student.log" |
            sed 's|^[^:]*/\([^/:]*:[0-9]*:\)|\1|'))"; return 0; }
    name=$(section_names "$at/student.o" | comm -13 "$at/stub.sections" - |
           grep -m1 -E 'init_array|fini_array|ctors|dtors' || true)
    [[ -z "$name" ]] || { echo "the code adds a constructor or destructor ($name)"; return 0; }
    name=$(defined_symbols "$at/student.o" | comm -13 "$at/stub.defs" - |
           awk -F '\t' '!($1 ~ /^[bdr]$/ && $2 ~ /\.[0-9]+$/) && !($1 == "t" && $2 !~ /\./) {
                             print $2; exit }')
    [[ -z "$name" ]] || { echo "the code defines $name, outside the lines it may write"; return 0; }
    name=$(references "$at/student.o" | comm -13 "$at/stub.refs" - | cut -f 2 | sort -u |
           grep -vE '^(mem(cpy|move|set|cmp)|__stack_chk_fail|__assert_fail)$' |
           grep -vE "^($libm_names)[fl]?\$" |
           grep -vxF -f <(cat "$at/allowed"
                          defined_symbols "$at/student.o" | awk -F '\t' '$1 == "t" { print $2 }') |
           head -1 || true)
    [[ -z "$name" ]] || echo "the code calls $name, which this exercise does not allow"
}
add_records() {
    local dir=$1 file name
    records > "$scratch/records"
    [[ -s "$scratch/records" ]] || return 0
    file=$(region_file "$dir")
    name=$(wrapped)
    cases > "$scratch/cases"
    if [[ -n $name ]]; then
        awk -v name="$name" -v begin_key="$begin_key" -v end_key="$end_key" -v lines="$scratch/records" \
            -v cases="$scratch/cases" '
            { line[NR] = $0 }
            END {
                for (b = 1; b <= NR && !index(line[b], begin_key); b++) ;
                for (e = b; e <= NR && !index(line[e], end_key); e++) ;
                for (h = b; h > 0 && line[h] !~ ("^[A-Za-z_].*(^|[^A-Za-z0-9_])" name " *\\("); h--) ;
                for (c = e; c <= NR && line[c] != "}"; c++) ;
                if (h < 1 || c > NR) { print "no function " name " around the hole" > "/dev/stderr"; exit 1 }
                header = ""
                for (o = h; o <= NR; o++) {
                    header = header (o > h ? " " : "") line[o]
                    if (index(line[o], "{")) break
                }
                sub(/ *\{.*$/, "", header)
                match(header, name " *\\(")
                prefix = substr(header, 1, RSTART - 1)
                params = substr(header, RSTART + RLENGTH); sub(/\) *$/, "", params); gsub(/  +/, " ", params)
                n = split(params, p, ","); args = ""
                for (i = 1; i <= n && params !~ /^ *void *$/; i++) {
                    a = p[i]; sub(/\[.*$/, "", a); sub(/ +$/, "", a)
                    match(a, /[A-Za-z_][A-Za-z0-9_]*$/)
                    args = args (i > 1 ? ", " : "") substr(a, RSTART, RLENGTH)
                }
                type = prefix; gsub(/(static|inline|extern) +/, "", type); gsub(/^ +| +$/, "", type)
                for (i = 1; i <= NR; i++) {
                    if (i == h) print "#define " name " exercise_graded_" name
                    print line[i]
                    if (i != c) continue
                    print "#undef " name
                    print prefix name "(" params ")"
                    print "{"
                    print "    void exercise_record_floats(const float *, size_t);"
                    print "    void exercise_record_int(long);"
                    print "    void exercise_record_case(const char *, ...);"
                    while ((getline l < cases) > 0) print "    exercise_record_case(" l ");"
                    call = "exercise_graded_" name "(" args ");"
                    print "    " (type == "void" ? call : type " result = " call)
                    while ((getline l < lines) > 0) print "    " l
                    if (type != "void") print "    return result;"
                    print "}"
                }
            }' "$dir/$file" > "$scratch/recorded" ||
            die "$ex_id: the %wrap line names no function of $file"
    else
        awk -v end_key="$end_key" -v lines="$scratch/records" '
            { print }
            index($0, end_key) {
                pad = substr($0, 1, index($0, "/*") - 1)
                printf "%s{ void exercise_record_floats(const float *, size_t);\n", pad
                printf "%s  void exercise_record_int(long);\n", pad
                while ((getline line < lines) > 0) print pad "  " line
                print pad "}"
            }' "$dir/$file" > "$scratch/recorded"
    fi
    cpif "$dir/$file" < "$scratch/recorded"
    cpif "$dir/src/exercise_record.c" < "$tools_dir/exercise-record.c"
}
reference_records() {
    local work=$1 file=$2 ref=$3 graded=$4 program name token programs=(build/tests)
    [[ -s "$scratch/records" ]] || return 0
    [[ "$(cat "$ref/key" 2>/dev/null)" != "$(web_key)" ]] || return 0
    rm -rf "$ref" && mkdir -p "$ref/logs"
    [[ ! -e "$work/.screen/graded" ]] || rm -rf "$work/build"
    [[ ! -d "$work/viz" ]] || programs+=(build/viz-tests)
    solution > "$scratch/solution"
    splice "$work/$file" "$scratch/solution" marker
    sandboxed "$work" . "${EXERCISE_BUILD_LIMIT:-600}" make --no-print-directory -j2 \
        "${programs[@]}" build/mha > "$ref/build.log" 2>&1 < /dev/null ||
        die "$ex_id: the book's answer does not build; see $ref/build.log"
    while IFS=$'\t' read -r program name; do
        token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
        sandboxed "$work" tests "${EXERCISE_TIME_LIMIT:-60}" env \
            EXERCISE_RECORD="$(inside "$work")/record-$token.log" OMP_NUM_THREADS=1 \
            SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software MHA_MODEL_DIR=../models/induction \
            "../build/$program" --jobs=1 --filter="$name" > /dev/null 2>&1 < /dev/null || true
        take_plain_file "$work/record-$token.log" "$ref/logs/${name//\//__}" "$record_bytes"
    done < "$graded"
    cpif "$work/$file" < "$work/.screen/pristine"
    web_key > "$ref/key"
}

inside() { if [[ ${EXERCISE_TRUSTED:-} == 1 ]]; then echo "$1"; else echo /hand-in; fi; }
record_bytes=$((16 << 20)) report_bytes=$((4 << 20))
take_plain_file() { # FROM TO BYTES: a plain file the sandbox left, at most BYTES, into TO
    rm -f -- "$2"
    if [[ -f $1 && ! -L $1 ]]; then timeout 10 head -c "$3" -- "$1" > "$2" || : > "$2"
    else : > "$2"; fi
    rm -f -- "$1" 2> /dev/null || true
}

same_records() {
    [[ -f "$1" ]] || { echo "no record of the book's answer for this test"; return 0; }
    awk '
    function differ(why) { print "its results differ from the book" "\047" "s answer: " why
                           bad = 1; exit }
    function same(a, b,   d) {
        if (a ~ /nan|inf/ || b ~ /nan|inf/)
            return (a ~ /nan/ && b ~ /nan/) || a == b
        d = a - b; if (d < 0) d = -d
        return d <= 1e-5 + 1e-4 * (b < 0 ? -b : b)
    }
    FILENAME == ARGV[1] { want[++wanted] = $0; calls += $1 != "case"; next }
    $1 == "case" { got++; where = " (" substr($0, 6) ")"; next }
    { got++; made++
      if (got > wanted) differ("it made more than the " calls " calls")
      m = split(want[got], w, " ")
      if ($1 != w[1] || NF != m) differ("call " made where " gives \"" substr($0, 1, 40) "\"")
      for (i = 2; i <= NF; i++)
          if (!same($i, w[i]))
              differ("call " made where " gives " $i " where " w[i] " was wanted") }
    END { if (!bad && made < calls)
              print "its results differ from the book" "\047" "s answer: it made " made + 0 \
                    " of the " calls " calls" }' \
        "$1" "$2"
}
as_nobody() {
    if [[ $(id -u) == 0 ]]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
    else "$@"; fi
}

sandbox_note() {
    [[ ${EXERCISE_TRUSTED:-} != 1 ]] || return 0
    as_nobody bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin \
        --symlink usr/lib /lib --symlink usr/lib64 /lib64 true > /dev/null 2>&1 ||
        echo "this machine cannot give a hand-in namespaces of its own, so it is not run" \
             "(grade with TRUSTED=1 only hand-ins whose authors you trust)"
}

sandboxed() {
    local dir=$1 sub=$2 limit=$3 limits kept=() d outer
    shift 3
    outer=(timeout -k 2 $((limit + 10)))          # the grader's own clock, out of reach
    [[ $(id -u) != 0 ]] || outer+=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    for d in .screen Makefile exercise.mk src learn io cmd tables viz; do
        kept+=(--ro-bind-try "$dir/$d" "/hand-in/$d")
    done
    limits="ulimit -c 0 -v ${EXERCISE_MEMORY_KB:-2097152} -f ${EXERCISE_FILE_KB:-262144}"
    limits+=" -t $((limit + 5))"
    if [[ ${EXERCISE_TRUSTED:-} == 1 ]]; then
        (cd "$dir/$sub" && exec bash -c "$limits && exec timeout -k 2 $limit \"\$@\"" run "$@")
    else
        "${outer[@]}" bwrap --unshare-all --die-with-parent --new-session \
            --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin \
            --symlink usr/sbin /sbin --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
            --proc /proc --dev /dev --tmpfs /tmp --bind "$dir" /hand-in \
            "${kept[@]}" \
            --chdir "/hand-in/$sub" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/hand-in \
            bash -c "$limits -u ${EXERCISE_PROCESSES:-64} && exec timeout -k 2 $limit \"\$@\"" \
            run "$@"
    fi
}

reap() {
    local p
    for p in $(grep -lzx -- "EXERCISE_RUN=$1" /proc/[0-9]*/environ 2>/dev/null); do
        p=${p#/proc/}
        kill -KILL "${p%/environ}" 2>/dev/null
    done
    return 0
}
graded_tests() {
    local patterns
    IFS=, read -r -a patterns <<< "$ex_tests,held_out/${ex_id//-/_}_*"
    tests_matching "$1" "${patterns[@]}"
}

run_test() {
    local work=$1 program=$2 name=$3 limit=$4 g=$1.grade token status=0 st asserts reader
    token=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
    echo "== $name" >> "$g/test-$program.log"
    rm -f "$g/report" "$g/report.pipe" && mkfifo -m 622 "$g/report.pipe"
    timeout $((limit + 30)) head -c "$report_bytes" "$g/report.pipe" > "$g/report" &
    reader=$!
    sandboxed "$work" tests "$limit" env EXERCISE_RUN="$token" SDL_VIDEODRIVER=dummy \
        EXERCISE_RECORD="$(inside "$work")/record-$token.log" OMP_NUM_THREADS=1 \
        SDL_RENDER_DRIVER=software MHA_MODEL_DIR=../models/induction "../build/$program" \
        --jobs=1 --json=/dev/fd/3 --filter="$name" < /dev/null 3> "$g/report.pipe" 2>&1 |
        { head -c "${EXERCISE_OUTPUT_BYTES:-65536}"; cat > /dev/null; } >> "$g/test-$program.log" ||
        status=$?
    reap "$token"
    wait "$reader" || true
    rm -f "$g/report.pipe"
    take_plain_file "$work/record-$token.log" "$g/record" "$record_bytes"
    st=""; asserts=0; message=""
    if ! one_report "$g/report"; then
        [[ ! -s "$g/report" ]] || st=DAMAGED
    else
        IFS=$'\t' read -r _ st asserts message < <(report_results "$g/report" |
            awk -F '\t' -v n="$name" '$1 == n') || true
    fi
    if [[ $st == PASSED && ${asserts:-0} -gt 0 && -s "$scratch/records" ]]; then
        message=$(same_records "${EXERCISE_REFERENCE:-$work.reference}/logs/${name//\//__}" \
                               "$g/record")
        [[ -z "$message" ]] || st=FAILED
    fi
    if [[ $st == PASSED && $status -ne 0 ]]; then
        st=FAILED; message="the test program ended with status $status after its report"
    fi
    test_outcome "$st" "$asserts" "$status" "$limit"
    if [[ $name == held_out/* && $outcome == fail ]]; then
        local case=${name#held_out/}
        case=${case#"${ex_id//-/_}"_}
        message="the held-out case \"${case//_/ }\" gives a wrong result"
        message+=" (its values stay with the grader)"
    fi
}
one_report() { # FILE: exactly one JSON document, Criterion's, and nothing before or after it
    python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
except (ValueError, OSError):
    sys.exit(1)
sys.exit(0 if isinstance(d, dict) and str(d.get("id", "")).startswith("Criterion") else 1)' "$1"
}
verify_tricks() {
    local root=$1 name words count=0 logged cap
    while IFS= read -r line; do
        name=${line#== $ex_id }; words=${name#*: }; name=${name%%:*}
        awk -v head="$line" '$0 == head { on = 1; next } /^== / { on = 0 } on' \
            "$tools_dir/exercise-tricks.txt" > "$scratch/trick"
        splice "$root/student/$(region_file "$root/student")" "$scratch/trick" none
        if EXERCISE_TIME_LIMIT=${EXERCISE_VERIFY_LIMIT:-20} \
           EXERCISE_TOTAL_LIMIT=$(( ${EXERCISE_VERIFY_LIMIT:-20} + 5 )) \
           EXERCISE_UNSCREENED=$([[ $name != unscreened-* ]] || echo 1) \
           cmd_check "$ex_id" "$root/student" "$root/work" > "$root/trick-$name.txt" ||
           ! grep -qF -- "$words" "$root/trick-$name.txt"; then
            cat "$root/trick-$name.txt"
            die "$ex_id: the trick '$name' is not FAIL with '$words'"
        fi
        [[ ! -e "$root/planted" && ! -L "$root/planted" ]] ||
            die "$ex_id: the trick '$name' made the grader write outside the hand-in's tree"
        logged=$(find "$root/work.grade" -maxdepth 1 -name 'test-*.log' -exec cat {} + | wc -c)
        cap=$(( $(wc -l < "$root/work.grade/graded") * (${EXERCISE_OUTPUT_BYTES:-65536} + 256) ))
        [[ $logged -le $cap ]] ||
            die "$ex_id: the trick '$name' left $logged bytes of log, more than the $cap allowed"
        count=$((count + 1))
    done < <(grep -F -- "== $ex_id " "$tools_dir/exercise-tricks.txt" || true)
    if [[ $count -eq 1 ]]; then
        echo "verify: $ex_id: the one trick handed in is FAIL, for its reason"
    elif [[ $count -gt 1 ]]; then
        echo "verify: $ex_id: the $count tricks handed in are FAIL, each for its reason"
    fi
}
cmd_grade() {
    load "$1"
    local submissions=$2 out=$3 entry place key n=0 why old
    [[ -d "$submissions" ]] || die "no directory $submissions"
    submissions=$(cd "$submissions" && pwd)
    mkdir -p "$out" && out=$(cd "$out" && pwd)       # the screen compiles from inside a folder
    why=$(sandbox_note)
    [[ -z "$why" ]] || die "$why"
    if [[ -e "$out/gradebook.csv" || -d "$out/work" ]]; then
        old="$out/previous-$(date -u +%Y%m%dT%H%M%SZ)"
        mkdir -p "$old"
        for entry in gradebook.csv gradebook.json feedback work hand-ins reference; do
            [[ ! -e "$out/$entry" ]] || mv "$out/$entry" "$old/"
        done
    fi
    mkdir -p "$out/work" "$out/feedback" "$out/hand-ins"
    cmd_create "$1" "$out/template"
    place=$(region_file "$out/template")
    make -C "$out/template" --no-print-directory -j2 build/tests build/mha \
        $([[ -d "$out/template/viz" ]] && echo build/viz-tests) > "$out/template/build.log" 2>&1 ||
        die "the stub of $1 does not build; see $out/template/build.log"
    allowed_symbols "$out/template" "$place"
    graded_tests "$out/template" > "$out/template/graded"
    cut -f 2 "$out/template/graded" > "$scratch/graded"
    points_table "$out"
    [[ -z ${EXERCISE_ROSTER:-} ]] || read_roster "$EXERCISE_ROSTER" > "$scratch/roster"
    : > "$scratch/matched"
    records > "$scratch/records"
    [[ $(id -u) != 0 || ${EXERCISE_TRUSTED:-} == 1 ]] || chmod -R a+rwX "$out/template"
    reference_records "$out/template" "$place" "$out/reference" "$out/template/graded"
    export EXERCISE_REFERENCE="$out/reference"
    : > "$scratch/keys"
    while IFS= read -r -d '' entry; do
        n=$((n + 1)); key=$(printf 'h%03d' "$n")
        printf '%s' "${entry##*/}" > "$out/hand-ins/$key.name"
        intake "$entry" "$out/hand-ins/$key" "$place" > "$out/hand-ins/$key.why"
        cp -a "$out/template" "$out/work/$key"
        printf '%s\0' "$key" >> "$scratch/keys"
    done < <(find "$submissions" -mindepth 1 -maxdepth 1 -print0 | sort -z)
    echo "grade: $n hand-ins of $ex_id, $(nproc) at a time"
    xargs -0 -P "$(nproc)" -I{} bash "$0" grade-one "$1" "$out" {} < "$scratch/keys"
    local commit compiler limits graded_at name student work verdict cells first sha who status
    commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    [[ -z "$(git status --porcelain 2>/dev/null)" ]] || commit+="+edits"
    compiler=$("${CC:-cc}" --version | sed -n 1p)
    limits="${EXERCISE_TIME_LIMIT:-60} s a test, ${EXERCISE_MEMORY_KB:-2097152} KB"
    limits+=", ${EXERCISE_PROCESSES:-64} processes, ${EXERCISE_FILE_KB:-262144} KB a file"
    graded_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    while IFS= read -r -d '' key; do
        work="$out/work/$key.grade"; name=$(cat "$out/hand-ins/$key.name"); name=${name//[$'\n\r']/?}
        student=$name; [[ -d "$submissions/$name" ]] || student=${name%.*}
        verdict=FAIL; [[ -s "$work/verdict" ]] && read -r _ _ _ _ verdict < "$work/verdict"
        first=$(awk -F '\t' '$2 != "pass" { print $1 ": " $2 ($3 != "" ? ", " $3 : ""); exit }' \
                "$work/results.tsv" | tr '\037' ' ')
        [[ -n "$first" ]] || first=$(sed -n 's/^  note: *//p' "$out/feedback/$key.txt")
        sha=""
        [[ -n "$(cat "$out/hand-ins/$key.why")" ]] ||
            sha=$(cat "$out/hand-ins/$key"/*/* | sha256sum | cut -c1-64)
        cells=$(awk -F '\t' -v OFS='\037' -v table="$points" '
            BEGIN { while ((getline l < table) > 0) {
                        split(l, f, "\t"); worth[f[1]] = f[2] + 0 } }
            FILENAME == ARGV[1] { outcome[$1] = $2; next }
            { w = ($1 in worth) ? worth[$1] : 1; got = outcome[$1] == "pass" ? w : 0
              sum += got; max += w; cells = cells OFS got }
            END { printf "%g%s%g%s%.1f%s", sum, OFS, max, OFS, (max > 0 ? 100 * sum / max : 0),
                         cells }' \
            "$work/results.tsv" "$scratch/graded")
        [[ -e "$out/feedback/$student.txt" ]] || mv "$out/feedback/$key.txt" "$out/feedback/$student.txt"
        status=graded
        who=""
        if [[ -n ${EXERCISE_ROSTER:-} ]]; then
            who=$(roster_row "$name")
            if [[ -n "$who" ]]; then
                echo "${who%%$'\037'*}" >> "$scratch/matched"
                who=${who#*$'\037'}
            else
                who=$'\037'; status=unlisted
                echo "grade: $name is not on the roster; its row has no ID" >&2
            fi
            who+=$'\037'
        fi
        printf '%s%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\037%.1f\n' "$who" \
            "$student" "$verdict" "$status" "$cells" "$first" "$sha" "$graded_at" "$commit" "$compiler" \
            "$limits" "$(( $(cat "$work/milliseconds" 2>/dev/null || echo 0) / 100 ))e-1"
    done < "$scratch/keys" > "$scratch/gradebook"
    if [[ -n ${EXERCISE_ROSTER:-} ]]; then
        row_number=0
        while IFS=$'\037' read -r sid sname name _; do     # a tab would merge empty fields
            row_number=$((row_number + 1))
            ! grep -qxF -- "$row_number" "$scratch/matched" || continue
            cells=$(awk -v OFS='\037' -v table="$points" '
                BEGIN { while ((getline l < table) > 0) { split(l, f, "\t"); worth[f[1]] = f[2] + 0 } }
                { max += ($1 in worth) ? worth[$1] : 1; cells = cells OFS }
                END { printf "%s%g%s%s", OFS, max, OFS, cells }' "$scratch/graded")
            row='%s\037%s\037%s\037missing\037missing\037%s\037no hand-in %s\037\037'
            printf "$row"'%s\037%s\037%s\037%s\0370.0\n' "$sid" "$sname" \
                "$([[ $name == *@* ]] && echo "$name" || echo "${name%.*}")" "$cells" \
                "$([[ -n $name ]] && echo "named $name" || echo "from $sname")" "$graded_at" \
                "$commit" "$compiler" "$limits"
        done < <(tr '\t' '\037' < "$scratch/roster") >> "$scratch/gradebook"
    fi
    { [[ -z ${EXERCISE_ROSTER:-} ]] || printf 'student_id\037name\037'
      printf 'student\037verdict\037status\037score\037out_of\037percent\037'
      tr '\n' '\037' < "$scratch/graded"
      printf 'first_failure\037hand_in_sha256\037graded_at\037commit\037compiler\037limits\037seconds\n'
      cat "$scratch/gradebook"; } > "$scratch/table"
    awk -F '\037' 'function q(s) { if (s ~ /^[=+@\t\r-]/) s = "\047" s; gsub(/"/, "\"\"", s)
                                 return "\"" s "\"" }
        NR == 1 { printf "\357\273\277" }
        { line = ""; for (i = 1; i <= NF; i++) line = line (i > 1 ? "," : "") q($i); print line }' \
        "$scratch/table" > "$out/gradebook.csv"
    awk -F '\037' -v ex="$ex_id" -v graded="$scratch/graded" '
        function q(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s)
                        return "\"" s "\"" }
        BEGIN { while ((getline l < graded) > 0) number[l] = 1
                number["score"] = number["out_of"] = number["percent"] = number["seconds"] = 1 }
        NR == 1 { for (i = 1; i <= NF; i++) head[i] = $i
                  printf "{\n  \"exercise\": %s,\n  \"students\": [", q(ex); next }
        { printf "%s\n    {", (NR > 2 ? "," : "")
          for (i = 1; i <= NF; i++)
              printf "%s%s: %s", (i > 1 ? ", " : ""), q(head[i]),
                     !(head[i] in number) ? q($i) : $i == "" ? "null" : $i + 0
          printf "}" }
        END { print "\n  ]\n}" }' "$scratch/table" > "$out/gradebook.json"
    [[ -z ${EXERCISE_ROSTER:-} ]] || awk -F '\037' -v ex="$ex_id" -v moodle="$out/moodle.csv" -v canvas="$out/canvas.csv" '
                                         function q(s) { if (s ~ /^[=+@\t\r-]/) s = "\047" s; gsub(/"/, "\"\"", s)
                                                         return "\"" s "\"" }
                                         FILENAME == ARGV[1] { split($0, f, "\t"); key = f[1] SUBSEP f[2]
                                                               id[key] = f[4]; login[key] = f[5]; section[key] = f[6]
                                                               mail[key] = f[7]
                                                               next }
                                         FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
                                                    print "\"ID number\",\"Email address\",\"Full name\"," q(ex) \
                                                          ",\"Feedback\"" > moodle
                                                    print "Student,ID,SIS User ID,SIS Login ID,Section," q(ex) > canvas
                                                    next }
                                         FNR == 2 { print "Points Possible,,,,," $col["out_of"] > canvas }
                                         $col["status"] != "unlisted" {
                                             why = $col["verdict"] ($col["first_failure"] != "" ? ": " $col["first_failure"] : "")
                                             key = $1 SUBSEP $2
                                             print q($1) "," q(mail[key]) "," q($2) "," $col["score"] "," q(why) > moodle
                                             print q($2) "," id[key] "," q($1) "," q(login[key]) "," q(section[key]) "," \
                                                   $col["score"] > canvas }' \
                                         "$scratch/roster" "$scratch/table"
    awk -F '\037' -v at=$([[ -z ${EXERCISE_ROSTER:-} ]] && echo 2 || echo 4) '
        { n++; if ($at == "PASS") p++; if ($at == "missing") m++; if ($(at + 1) == "unlisted") u++ }
        END { printf "grade: %d rows, %d PASS, %d FAIL, %d missing, %d not on the roster\n",
                     n, p, n - p - m, m, u }' "$scratch/gradebook"
    echo "grade: $out/gradebook.csv, $out/gradebook.json$([[ -z ${EXERCISE_ROSTER:-} ]] ||
          echo ", $out/moodle.csv, $out/canvas.csv"), feedback in $out/feedback/"
}
points_table() {
    points=${EXERCISE_POINTS:-$1/points.tsv}
    [[ -n ${EXERCISE_POINTS:-} || -e "$points" ]] || {
        sed 's/$/\t1/' "$scratch/graded" > "$points"
        echo "grade: one point a test, in $points: edit it and grade again to change them"; }
    [[ -f "$points" ]] || die "no points table $points"
}
read_roster() {
    [[ -f "$1" ]] || die "no roster $1"
    tr -d '\r' < "$1" | sed '1s/^\xef\xbb\xbf//' |
        awk -v FPAT='([^,]*)|("([^"]|"")*")' -v OFS='\t' '
        function field(i,   s) { s = $i
                                 if (s ~ /^".*"$/) { s = substr(s, 2, length(s) - 2)
                                                     gsub(/""/, "\"", s) }
                                 gsub(/[\t]/, " ", s); sub(/^ +/, "", s); sub(/ +$/, "", s)
                                 return s }
        function get(name) { return (name in col) ? field(col[name]) : "" }
        NR == 1 { for (i = 1; i <= NF; i++) col[field(i)] = i
                  kind = ("Student" in col) && ("SIS Login ID" in col) ? "canvas" :
                         ("First name" in col) && ("ID number" in col) ? "moodle" : "own"
                  next }
        kind == "own" && NF >= 3 { print field(1), field(2), field(3), "", "", "", "" }
        kind == "canvas" && get("Student") !~ /^(Points Possible|Student, Test)?$/ {
            print get("SIS User ID"), get("Student"), get("SIS Login ID"), get("ID"),
                  get("SIS Login ID"), get("Section"), "" }
        kind == "moodle" && get("First name") get("Last name") != "" {
            print get("ID number"), get("First name") " " get("Last name"),
                  get("Email address"), "", "", "", get("Email address") }'
}
roster_row() {
    n=$1 awk -F '\t' -v OFS='\037' '
        BEGIN { n = ENVIRON["n"]; base = n; sub(/\.[^.]*$/, "", base)
                if (match(n, /_[0-9]+_assignsubmission_[A-Za-z]+_?$/))
                    moodle = substr(n, 1, RSTART - 1)
                if (match(n, /^[^_]+_([Ll][Aa][Tt][Ee]_)?[0-9]+_[0-9]+_/)) {
                    canvas = substr(n, 1, RLENGTH - 1)
                    sub(/^[^_]+_([Ll][Aa][Tt][Ee]_)?/, "", canvas)
                    sub(/_[0-9]+$/, "", canvas) } }
        function is(s) { return s != "" && (s == n || s == base) }
        { local = $7; sub(/@.*/, "", local)
          if (is($3) || is($1) || is($7) || is(local)) exact[++e] = NR OFS $1 OFS $2
          else if ((moodle != "" && moodle == $2) || (canvas != "" && canvas == $4))
              named[++m] = NR OFS $1 OFS $2 }
        END { if (e == 1) print exact[1]; else if (e == 0 && m == 1) print named[1] }' \
        "$scratch/roster"
}
cmd_roster() {
    local name row
    read_roster "$1" > "$scratch/roster"
    shift
    for name in "$@"; do
        row=$(roster_row "$name")
        printf '%s\t%s\n' "$name" "${row:--}" | tr '\037' '\t'
    done
}
intake() {
    local entry=$1 dest=$2 place=$3 name=${1##*/} found=() file
    if [[ $name == *[$'\n\r']* ]]; then
        echo "the name holds a line break, which would forge a row of the gradebook"; return 0
    elif [[ -L $entry ]]; then
        echo "symlink: a link is not followed"; return 0
    elif [[ -f $entry ]]; then
        found=("$entry")
    elif [[ -d $entry ]]; then
        mapfile -d '' found < <(find "$entry" -type f -size -1024k -print0 |
                                xargs -0r grep -lZF -- "$begin_key" || true)
        if [[ ${#found[@]} -gt 1 ]]; then
            for file in "${found[@]}"; do
                [[ $file != */"$place" ]] || found=("$file")
            done
        fi
        [[ ${#found[@]} -eq 1 ]] || {
            echo "${#found[@]} files of the folder hold the BEGIN EXERCISE $ex_id line, not one" \
                 "(links are not followed)"; return 0; }
    else
        echo "not a regular file or a folder"; return 0
    fi
    mkdir -p "$dest/$(dirname "$place")"
    head -c 1048576 -- "${found[0]}" > "$dest/$place"
}
cmd_grade_one() {
    local out=$2 key=$3 start why
    start=$(date +%s%N)
    why=$(cat "$out/hand-ins/$key.why")
    if [[ -n "$why" ]]; then
        load "$1"
        printf 'exercise %s: %s\n  note:    %s\n  verdict: FAIL\n' "$ex_id" "$ex_title" "$why" \
            > "$out/feedback/$key.txt"
        mkdir -p "$out/work/$key.grade"
        echo "0 0 0 0 FAIL" > "$out/work/$key.grade/verdict"
        : > "$out/work/$key.grade/results.tsv"
    else
        EXERCISE_GRADING=1 cmd_check "$1" "$out/hand-ins/$key" "$out/work/$key" \
            > "$out/feedback/$key.txt" 2>&1 || true
    fi
    echo $(( ($(date +%s%N) - start) / 1000000 )) > "$out/work/$key.grade/milliseconds"
    echo "grade: $(tr '\n\r' '??' < "$out/hand-ins/$key.name"):" \
         "$(sed -n 's/^  verdict: //p' "$out/feedback/$key.txt")"
}
cmd_wrong() {
    load "$1"
    local file
    file=$(region_file "$3") || die "$3 has no markers of exercise $ex_id"
    wrong_answer "$2" > "$scratch/wrong"
    [[ -s "$scratch/wrong" ]] || die "exercise $ex_id has no known-wrong answer '$2'"
    splice "$3/$file" "$scratch/wrong" none
}
cmd_list() {
    local f
    for f in "${web[@]}"; do printf '%s\t%s\n' "$f" "$(chapter_name "$f")"; done > "$scratch/names"
    markers | awk -F '\t' -v names="$scratch/names" '
        BEGIN { while ((getline l < names) > 0) { split(l, f, "\t"); name[f[1]] = f[2] } }
        NR == 1 { printf "%-20s %-7s %-4s %-46s %s\n", "exercise", "kind", "diff", "title",
                         "chapter; tests" }
        { printf "%-20s %-7s %-4s %-46s %s; %s\n", $1, $4, $7, $6, name[$2],
                 $4 == "coding" ? $8 : "answer in the appendix" }'
}
cmd_sheet() {
    local id file line kind chunk title difficulty tests
    {
        echo "# Written exercises: answer sheet"
        echo
        echo "*Multi-Head Attention, from the Ground Up.*  Write each answer under its"
        echo "exercise, below the line \"Answer:\", keep the headings, and hand this file"
        echo "in under your name."
        markers | awk -F '\t' '$4 == "written"' |
        while IFS=$'\t' read -r id file line kind chunk title difficulty tests; do
            ex_file=$file ex_line=$line
            echo
            echo "## $id: $title"
            echo
            echo "From the chapter \"$(chapter_name "$file")\"; difficulty $difficulty of 3."
            echo
            statement | latex_to_text
            echo
            echo "Answer:"
            echo
        done
    } > "$1"
}
cmd_verify() {
    local ids=("$@") id jobs=${EXERCISE_VERIFY_JOBS:-2} failed=""
    local logs=build/exercises-verify/logs
    [[ ${#ids[@]} -gt 0 ]] || ids=($(coding_ids))
    for id in $(markers | awk -F '\t' '$4 == "written" { print $1 }'); do
        grep -qF -- "\\label{ans:$id}" "${web[@]}" ||
            die "written exercise $id has no answer labelled ans:$id"
    done
    if [[ -z ${EXERCISE_GIVEAWAYS:-} ]]; then
        mkdir -p build/exercises-verify
        all_giveaways > build/exercises-verify/giveaways
        export EXERCISE_GIVEAWAYS=$PWD/build/exercises-verify/giveaways
        cut -f 2- "$EXERCISE_GIVEAWAYS" | grep -v '^$' |
            grep -rqIF -f - src learn io cmd tables tests viz ||
            die "the search for giveaways finds none in the book's own sources"
    fi
    if [[ ${#ids[@]} -eq 1 || $jobs -le 1 ]]; then
        for id in "${ids[@]}"; do
            EXERCISE_VERIFY_SUITE=${EXERCISE_VERIFY_SUITE:-$(suite_for "$id" "${ids[0]}")} \
                verify_one "$id"
        done
        return
    fi
    rm -rf "$logs" && mkdir -p "$logs"
    for id in "${ids[@]}"; do
        while [[ $(jobs -pr | wc -l) -ge $jobs ]]; do
            wait -n || true
        done
        { EXERCISE_VERIFY_JOBS=1 EXERCISE_VERIFY_SUITE=$(suite_for "$id" "${ids[0]}") \
              bash "$0" verify "$id" > "$logs/$id.log" 2>&1 &&
              echo 0 > "$logs/$id.status" || echo $? > "$logs/$id.status"; } &
    done
    wait
    for id in "${ids[@]}"; do
        cat "$logs/$id.log"
        [[ $(cat "$logs/$id.status" 2> /dev/null) == 0 ]] || failed="$failed $id"
    done
    [[ -z "$failed" ]] || die "verification failed for:$failed"
}
suite_for() { [[ $1 == "$2" ]] && echo whole || echo built; }
verify_one() {
    local root="build/exercises-verify/exercise $1" tested passed failed crashed verdict
    rm -rf "$root/student"
    cmd_create "$1" "$root/student" handout
    echo "verify: $1: the workspace holds none of the $clean_count giveaways of the book's" \
         "exercises; $withheld_count files are given compiled"
    EXERCISE_WERROR=-Werror cmd_check "$1" "$root/student" "$root/work" > "$root/stub.txt" || true
    read -r tested passed failed crashed verdict < "$root/work.grade/verdict"
    [[ $verdict == FAIL && $tested -gt 0 && $failed -gt 0 && $crashed -eq 0 ]] ||
        { cat "$root/stub.txt"; die "$1: the stub must build and fail a test without crashing"; }
    local stub="$failed of $tested tests fail"
    local wrong wrongs=""
    for wrong in $(wrong_names); do
        wrong_answer "$wrong" > "$scratch/wrong"
        splice "$root/student/$(region_file "$root/student")" "$scratch/wrong" none
        if EXERCISE_TIME_LIMIT=${EXERCISE_VERIFY_LIMIT:-20} \
                EXERCISE_TOTAL_LIMIT=$(( ${EXERCISE_VERIFY_LIMIT:-20} + 5 )) \
                cmd_check "$1" "$root/student" "$root/work" > "$root/wrong-$wrong.txt"; then
            cat "$root/wrong-$wrong.txt"; die "$1: the known-wrong answer '$wrong' passes the tests"
        fi
        wrongs="$wrongs $wrong ($(awk -F '\t' '$2 != "pass" { print $2 }' "$root/work.grade/results.tsv" |
            sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }'
            sed -n 's/^  note: *\(.*\)/refused: \1/p' "$root/wrong-$wrong.txt"))"
    done
    [[ -z "$wrongs" ]] || echo "verify: $1: the known-wrong answers fail:$wrongs"

    verify_tricks "$root"
    local right rights=""
    for right in $(right_names); do
        wrong_answer "$right" right > "$scratch/right"
        splice "$root/student/$(region_file "$root/student")" "$scratch/right" none
        EXERCISE_WERROR=-Werror cmd_check "$1" "$root/student" "$root/work" > "$root/right-$right.txt" ||
            { cat "$root/right-$right.txt"; die "$1: the known-right answer '$right' does not pass"; }
        rights="$rights $right"
    done
    [[ -z "$rights" ]] || echo "verify: $1: the known-right answers pass:$rights"

    cmd_solve "$1" "$root/student"
    EXERCISE_WERROR=-Werror cmd_check "$1" "$root/student" "$root/work" > "$root/solved.txt" ||
        { cat "$root/solved.txt"; die "$1: the book's own solution does not pass"; }
    echo "verify: $1: stub builds, $stub, none crash; the book's solution passes them"
    local programs="build/tests build/mha" suite=${EXERCISE_VERIFY_SUITE:-whole}
    [[ ! -d "$root/student/viz" ]] || programs="$programs build/viz-tests"
    if [[ $suite == whole ]]; then
        make -C "$root/student" --no-print-directory -j2 WERROR=-Werror all-tests \
            > "$root/handout.txt" 2>&1 ||
            { tail -20 "$root/handout.txt"
              die "$1: the handed-out workspace fails its tests with the solution"; }
    else
        make -C "$root/student" --no-print-directory -j2 WERROR=-Werror $programs \
            > "$root/handout.txt" 2>&1 ||
            { tail -20 "$root/handout.txt"; die "$1: the handed-out workspace does not build"; }
    fi
    [[ $(hints | wc -l) -ge 1 ]] || die "$1 has no hint"
    [[ "$(make -C "$root/student" --no-print-directory -s hint N=1)" == *"hint 1 of"* ]] ||
        die "$1: make hint N=1 prints no hint in the workspace"
    make -C "$root/student" --no-print-directory -s submit > /dev/null &&
        cmp -s "$root/student/submit/$1.c" "$root/student/$(region_file "$root/student")" ||
        die "$1: make submit does not copy the graded file"
    make -C "$root/student" --no-print-directory test > "$root/handout-test.txt" 2>&1 ||
        { cat "$root/handout-test.txt"; die "$1: make test fails with the book's solution"; }
    wrong_answer exit-early > "$scratch/wrong"
    splice "$root/student/$(region_file "$root/student")" "$scratch/wrong" none
    ! make -C "$root/student" --no-print-directory test > "$root/handout-exit.txt" 2>&1 &&
        grep -q '^  early: ' "$root/handout-exit.txt" ||
        { cat "$root/handout-exit.txt"; die "$1: make test does not fail exit(0) as the grader does"; }
    local ran="builds every test program"
    [[ $suite != whole ]] || ran="passes make all-tests"
    echo "verify: $1: the handed-out workspace, given the book's solution, $ran" \
         "and passes make test; given exit(0), make test says early, as the grader does"

}
cmd_teacher_web() {
    local dir=$1 f
    for f in "${web[@]}"; do
        mkdir -p "$dir/$(dirname "$f")"
        awk -f "$tools_dir/exercise-hints.awk" "$f" > "$dir/$f"
    done
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
                [[ $(cat "${web[@]}" | grep -F -- "<<$name>>" |
                     grep -c -v -F -x -- "<<$name>>=") -eq 1 ]] &&
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
    check_student_web
    printf '%s\n' "${copied[@]}"
}
check_student_web() {
    local id line
    cat "${copied[@]}" | grep -v '^%' > "$scratch/student-text" || true
    { echo '<<every root of the student web>>='; noroots "${copied[@]}"; echo '@'; } \
        > "$scratch/roots.nw"
    notangle -R"every root of the student web" "${copied[@]}" "$scratch/roots.nw" \
        > "$scratch/student-code" 2> /dev/null || true
    normalised "$scratch/student-text" "$scratch/student-code" > "$scratch/student-normalised"
    for id in $(coding_ids); do
        load "$id"
        solution | normalised > "$scratch/own-body"
        [[ $(wc -c < "$scratch/own-body") -lt 40 ]] ||
            ! grep -qF -f "$scratch/own-body" "$scratch/student-normalised" ||
            die "the student's edition holds the answer of exercise $id"
        while IFS= read -r line; do
            ! grep -qF -- "$line" "$scratch/student-text" ||
                die "the student's edition gives the answer of exercise $id away: $line"
        done < <(solution | telltale_lines)
    done
}
{
    case "${1:-}" in
        list)        cmd_list ;;
        create)      [[ $# -eq 3 ]] || die "usage: create ID DIR";        cmd_create "$2" "$3" ;;
        handout)     [[ $# -eq 3 ]] || die "usage: handout ID DIR";       cmd_handout "$2" "$3" ;;
        solve)       [[ $# -eq 3 ]] || die "usage: solve ID DIR";         cmd_solve "$2" "$3" ;;
        check)       [[ $# -ge 3 ]] || die "usage: check ID DIR [WORK]"
                     cmd_check "$2" "$3" "${4:-}" ;;
        verify)      shift; cmd_verify "$@" ;;
        sandbox)     why=$(sandbox_note); [[ -z "$why" ]] || { echo "$why"; exit 1; } ;;
        grade)       [[ $# -eq 4 || ( $# -eq 5 && $5 == --trusted ) ]] ||
                         die "usage: grade ID SUBMISSIONS OUT [--trusted]"
                     [[ $# -eq 4 ]] || export EXERCISE_TRUSTED=1
                     cmd_grade "$2" "$3" "$4" ;;
        roster)      [[ $# -ge 2 ]] || die "usage: roster FILE [HAND-IN ...]"
                     shift; cmd_roster "$@" ;;
        grade-one)   [[ $# -eq 4 ]] || die "usage: grade-one ID OUT STUDENT"
                     cmd_grade_one "$2" "$3" "$4" ;;
        hint)        [[ $# -eq 3 ]] || die "usage: hint ID N";            cmd_hint "$2" "$3" ;;
        student-web) [[ $# -eq 2 ]] || die "usage: student-web DIR";      cmd_student_web "$2" ;;
        teacher-web) [[ $# -eq 2 ]] || die "usage: teacher-web DIR";      cmd_teacher_web "$2" ;;
        wrong)       [[ $# -eq 4 ]] || die "usage: wrong ID NAME DIR";    cmd_wrong "$2" "$3" "$4" ;;
        sheet)       [[ $# -eq 2 ]] || die "usage: sheet FILE";           cmd_sheet "$2" ;;
        *)           die "usage: exercise.sh list|create|handout|solve|check|verify|grade|hint" \
                         "|student-web|teacher-web ..." ;;
    esac
    exit
}
