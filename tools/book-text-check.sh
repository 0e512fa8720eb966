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
first version
lecture notes
source notes
load average (of )?[0-9]
perf record
thread\(s\)
[^0-9.]1 times as
PATTERNS

\section{Checking the layout}
\label{sec:book-log-check}

Two faults of a printed book show only in \LaTeX's log.  A page reference
that was still moving when the last pass ran prints the wrong page; the log
then ends with a request to ``rerun''.  A line wider than its column runs
into the margin, or off the paper.  [[make book]] runs \LaTeX{} until the
references settle (at most four passes) and then reads the log: a request to
rerun, or any line more than ten points wider than its measure, fails the
build, and the message names the line of [[book.tex]] and the chapter whose
text it came from, so that the fix goes where it belongs.  Lines up to ten
points over are tolerated: that is where \TeX{} prefers a slightly tight
line to a badly spaced paragraph.

exit $status
