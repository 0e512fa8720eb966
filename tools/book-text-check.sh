# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# The printed code reads as it compiles: --, <<, >> and ' survive in the PDF.
# usage: tools/book-text-check.sh BOOK.pdf
set -euo pipefail
pdf=${1:?usage: tools/book-text-check.sh BOOK.pdf}
command -v pdftotext > /dev/null || {
    echo "book-text-check: pdftotext (poppler-utils) is not installed; code glyphs not checked"
    exit 0; }
text=$(pdftotext "$pdf" -)
status=0
while IFS= read -r want; do
    grep -qF -- "$want" <<< "$text" || { echo "book-text-check: $pdf lacks: $want"; status=1; }
done <<'LINES'
r->state ^= r->state << 13;
r->state ^= r->state >> 7;
for (; *word != '\0'; word++)
"--heads", "3", "--reps", "3", "--causal"};
LINES
for bad in $'\xc2\xab' $'\xc2\xbb' $'\xe2\x80\x93causal'; do   # the guillemets, an en dash
    ! grep -qF -- "$bad" <<< "$text" || { echo "book-text-check: $pdf prints $bad"; status=1; }
done
flat=$(tr '\n' ' ' <<< "$text" | tr -s ' ')
while IFS= read -r pattern; do
    hit=$(grep -oiE -- "$pattern" <<< "$flat" | head -n 1 || true)
    [[ -z "$hit" ]] || { echo "book-text-check: $pdf speaks of its making: $hit"; status=1; }
done <<'PATTERNS'
first[ ]version
lecture[ ]notes
source[ ]notes
load[ ]average (of )?[0-9]
perf[ ]record
thread[(]s[)]
(^|[ (])1[ ]times as
PATTERNS
exit $status
