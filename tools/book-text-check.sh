# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# The printed code reads as it compiles: --, <<, >> and ' survive in the PDF;
# neither volume speaks of its making; the book's measures; no typed number
# with a unit in the prose (the web's files: NW, as the Makefile gives them).
# usage: tools/book-text-check.sh BOOK.pdf [COMPANION.pdf]
set -euo pipefail
pdf=${1:?usage: tools/book-text-check.sh BOOK.pdf [COMPANION.pdf]}
companion=${2:-}
tools=$(cd "$(dirname "$0")" && pwd)
command -v pdftotext > /dev/null || {
    echo "book-text-check: pdftotext (poppler-utils) is not installed; code glyphs not checked"
    exit 0; }
status=0
making() {   # in $text, the text of $volume
flat=$(tr '\n' ' ' <<< "$text" | tr -s ' ')
while IFS= read -r pattern; do
    hit=$(grep -oiE -- "$pattern" <<< "$flat" | head -n 1 || true)
    [[ -z "$hit" ]] || { echo "book-text-check: $volume speaks of its making: $hit"; status=1; }
done <<'PATTERNS'
first[ ]version
lecture[ ]notes
source[ ]notes
load[ ]average (of )?[0-9]
perf[ ]record[ ]-g
thread[(]s[)]
(^|[ (])1[ ]times as
PATTERNS
}
all=""
for volume in "$pdf" ${companion:+"$companion"}; do
    text=$(pdftotext "$volume" -)
    all+=$text
    for bad in $'\xc2\xab' $'\xc2\xbb' $'\xe2\x80\x93causal'; do   # the guillemets, an en dash
        ! grep -qF -- "$bad" <<< "$text" || { echo "book-text-check: $volume prints $bad"; status=1; }
    done
    making
done
while IFS= read -r want; do
    grep -qF -- "$want" <<< "$all" ||
        { echo "book-text-check: ${companion:+$companion or }$pdf lacks: $want"; status=1; }
done <<'LINES'
r->state ^= r->state << 13;
r->state ^= r->state >> 7;
for (; *word != '\0'; word++)
"--heads", "3", "--reps", "3", "--causal"};
LINES
base=${pdf%.pdf}
pages=$(pdfinfo "$pdf" 2> /dev/null | awk '/^Pages:/ { print $2 }')
ceiling=$(sed -n 's/^ceiling \([0-9]*\)$/\1/p' "$tools/book-pages.txt")
if [[ -z "$pages" || -z "$ceiling" ]]; then
    echo "book-text-check: no page count of $pdf (pdfinfo) or no ceiling in book-pages.txt"
    status=1
elif (( pages <= 420 )); then
    echo "book-text-check: $pdf has $pages pages, within 420"
else
    echo "book-text-check: $pdf has $pages pages, $((pages - 420)) above 420 (ceiling $ceiling)"
    if (( pages > ceiling )); then echo "book-text-check: $pdf is longer than its ceiling"; status=1
    elif (( pages < ceiling )); then
        echo "book-text-check: lower the ceiling in tools/book-pages.txt to $pages"; fi
fi
part_page() {   # $1: the part's number, in roman
    sed -n "s/^\\\\contentsline {part}{$1\\\\hspace .*}{\\([0-9]*\\)}{[^}]*}%*\$/\\1/p" \
        "$base.toc" 2> /dev/null; }
one=$(part_page I); two=$(part_page II); three=$(part_page III)
if [[ -n "$one" && -n "$two" && -n "$three" ]]; then
    echo "book-text-check: $pdf: Part II begins on page $two, Part III on page $three"
    figures=$(sed -n 's/^\\contentsline {figure}.*}{\([0-9]*\)}{[^}]*}%*$/\1/p' "$base.lof" |
              awk -v from="$one" -v to="$three" '$1 >= from && $1 < to' | wc -l)
    echo "book-text-check: $pdf: Parts I and II, pages $one-$((three - 1)): $figures figures," \
         "$(awk -v f="$figures" -v p=$((three - one)) 'BEGIN { printf "%.2f", f / p }') a page"
fi
shots=$(sed -n 's/^screenshot: \([^ ]*\) .*/\1/p' "$base.log" 2> /dev/null | sort -u | wc -l)
turned=$(pdfinfo -f 1 -l "${pages:-1}" "$pdf" 2> /dev/null |
         grep -cE '^Page +[0-9]+ rot: +90$' || true)
if [[ "${shots:-0}" != "${turned:-0}" ]]; then
    echo "book-text-check: $pdf: ${shots:-0} screenshots, but ${turned:-0} pages turned to show" \
         "them upright on a screen"
    status=1
fi
terms=$(grep -cE '^ *\\(sub)*item ' "$base.ind" 2> /dev/null || true)
identifiers=$(grep -c '^\\nwixadds{i}' "$base.aux" 2> /dev/null || true)
echo "book-text-check: $pdf: index of terms ${terms:-0} entries," \
     "index of identifiers ${identifiers:-0}"
if [[ -n "${NW:-}" ]]; then
    found=$(awk -f <(cat <<'AWK'
BEGIN {
    number = "[0-9]+([.][0-9]+)?"; space = "\\\\,|~|\\\\ | "
    unit = "(ms|us|ns|GB/s|MB/s|GFLOP/s|GFLOPS|GiB|MiB|KiB|MB|KB|GB|\\\\%)"
    before = "(^|[^A-Za-z0-9_.\\\\{])"; after = "([^A-Za-z0-9]|$)"
}
FNR == 1 { code = 0 }
/^<<.*>>=[ \t]*$/ { code = 1; next }
/^@( |$)/ { code = 0; sub(/^@ ?/, "") }
code { next }
{
    s = $0
    gsub(/\\%/, "\001", s); sub(/%.*/, "", s); gsub(/\[\[[^]]*\]\]/, "", s); gsub(/\001/, "\\%", s)
    while (match(s, before number "(" space ")?" unit after) ||
           match(s, before number "(" space ")(s|seconds|minutes)" after)) {
        hit = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        sub(/^[^0-9]*/, "", hit); sub(/[^A-Za-z%]*$/, "", hit)
        f = FILENAME; sub(/^.*\/chapters\//, "chapters/", f)
        print f " " hit
    }
}
AWK
) $NW | grep -vE ' (4|64)(\\,|~| )?KiB$| 100(\\,)?\\%$' | sort -u || true)
    known=$(grep -E '^(book\.nw|chapters/)' "$tools/book-units.txt" | sort -u || true)
    while IFS= read -r place; do
        [[ -z "$place" ]] || grep -qxF -- "$place" <<< "$known" ||
            { echo "book-text-check: a typed number with a unit: $place"; status=1; }
    done <<< "$found"
    while IFS= read -r place; do
        [[ -z "$place" ]] || grep -qxF -- "$place" <<< "$found" ||
            { echo "book-text-check: gone from the prose, delete from book-units.txt: $place"
              status=1; }
    done <<< "$known"
    echo "book-text-check: $(grep -c . <<< "$known" || true) numbers with a unit" \
         "typed in the prose, each a threshold the code defines; no other"
else
    echo "book-text-check: NW is not set; typed numbers not checked"
fi
exit $status
