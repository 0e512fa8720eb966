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
exit $status
