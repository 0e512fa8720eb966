# generated from chapters/26-exercises.nw; edit the book, not this file
# tools/exercise-lab.sh OUT: run the lab of the exercises appendix and write
# its transcript to OUT, as a verbatim block for the book.
set -eu -o pipefail
: "${NW:?exercise-lab.sh: set NW to the files of the web, in reading order}"
out=$1 lab=${BUILD:-build}/lab ex=softmax-stable
export LC_ALL=C
tool() { bash tools/exercise.sh "$@"; }
shown() {
    printf '$ %s\n' "$*"
    if [[ $1 == make ]]; then shift; make --no-print-directory "$@"
    else "$@" | sed '1s/^\xef\xbb\xbf//'; fi              # a spreadsheet's mark is not shown
}
wrap() {
    awk -v width=86 '{
        rest = $0; lead = "  "
        while (length(lead rest) > width) {
            n = width - length(lead); cut = n
            while (cut > n / 2 && substr(rest, cut, 1) != " ")
                cut--
            if (cut <= n / 2)
                cut = n
            print lead substr(rest, 1, cut)
            rest = substr(rest, cut + 1); lead = "        " }
        print lead rest }'
}
rm -rf "$lab" && mkdir -p "$lab/hand-in"
{
    shown make exercise EX=$ex DIR="$lab/$ex"
    file=$(cd "$lab/$ex" && grep -rlF "BEGIN EXERCISE $ex:" src tests)
    for student in ada bob cy dan eve fay; do
        cp -a "$lab/$ex" "$lab/$student"
    done
    tool solve $ex "$lab/ada"
    tool wrong $ex shift-by-first-finite-score "$lab/bob"
    tool wrong $ex exit-early "$lab/cy"
    tool wrong $ex endless-loop "$lab/dan"
    tool solve $ex "$lab/fay" && sed -i 's/sum += x\[j\];/sum += x[j]/' "$lab/fay/$file"
    mv "$lab/ada" "$lab/cy" "$lab/dan" "$lab/hand-in/"
    for student in bob eve fay; do
        cp "$lab/$student/$file" "$lab/hand-in/$student.c" && rm -rf "${lab:?}/$student"
    done
    shown ls -C "$lab/hand-in"
    shown make grade EX=$ex SUBMISSIONS="$lab/hand-in" OUT="$lab/grade" EXERCISE_TIME_LIMIT=10
    shown cut -d , -f 1-6 "$lab/grade/gradebook.csv"
    shown cat "$lab/grade/feedback/bob.txt"
} > "$lab/transcript" 2>&1
{ echo '\begin{verbatim}'
  sed "s|$PWD/||g" "$lab/transcript" | expand | wrap
  echo '\end{verbatim}'; } > "$out"
