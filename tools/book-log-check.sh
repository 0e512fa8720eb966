# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# LaTeX's log of a finished book: references settled, no line too wide.
# usage: tools/book-log-check.sh BOOK.log BOOK.tex [LIMIT_PT]
set -euo pipefail
log=${1:?usage: tools/book-log-check.sh BOOK.log BOOK.tex [LIMIT_PT]}
tex=${2:?usage: tools/book-log-check.sh BOOK.log BOOK.tex [LIMIT_PT]}
limit=${3:-10}
status=0
if grep -q 'Rerun to get' "$log"; then
    echo "book-log-check: $log: cross-references still moving after the last pass"
    status=1
fi
box='Overfull \\hbox (\([0-9.]*\)pt too wide)'
while read -r width line; do
    chapter=$(head -n "$line" "$tex" | { grep -o 'nwfilename{[^}]*}' || true; } |
              tail -n 1 | sed 's/nwfilename{\(.*\)}/\1/')
    echo "book-log-check: ${chapter:-$tex}: a line ${width}pt too wide (book.tex line $line)"
    status=1
done < <(sed -n -e "s/^$box.* lines [0-9]*--\([0-9]*\).*/\1 \2/p" \
                -e "s/^$box detected at line \([0-9]*\).*/\1 \2/p" "$log" |
         awk -v limit="$limit" '$1 > limit' | sort -u -k2,2n)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
font=$(grep -o 'lroundf([0-9]* \* scale)' "$root/viz/draw.c" | tr -dc '0-9\n' | sort -n | head -n 1)
if grep -q 'includegraphics[^{]*{viewer-' "$tex"; then
    echo "book-log-check: $tex: a screenshot included without \\screenshot, its size unchecked"
    status=1
fi
while read -r file wide high; do
    png="$root/figures/$file"
    read -r w h < <(od -An -tu1 -j16 -N8 "$png" |
        awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
    verdict=$(awk -v W="${wide%pt}" -v H="${high%pt}" -v w="$w" -v h="$h" -v f="${font:-0}" \
        'BEGIN { p = f * sqrt(W * H / (w * h));
                 if (h >= 900) print "drawn at a larger scale (900 pixels high or more)";
                 else if (p < 7) printf "its smallest text prints at %.1f points\n", p }')
    if [[ -n $verdict ]]; then
        echo "book-log-check: $file (${w}x${h}, printed $wide by $high): $verdict"
        status=1
    fi
done < <(sed -n 's/^screenshot: \([^ ]*\) printed \([0-9.]*pt\) by \([0-9.]*pt\).*/\1 \2 \3/p' "$log")
exit $status
