# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# tools/book-latex.sh after a stopped pass: the side files it left are not read.
set -euo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mha book-latex.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
printf '%s\n' '\documentclass{article}' '\usepackage{hyperref}' '\begin{document}' \
    '\tableofcontents' '\section{One}\label{one}' 'The section on page~\pageref{one}.' \
    '\end{document}' > "$scratch/tiny.tex"
run() {      # $1: what the run follows
    bash "$tools/book-latex.sh" "$scratch" tiny > "$scratch/run.txt" 2>&1 ||
        { cat "$scratch/run.txt"; echo "book-latex-test: the run $1 failed"; exit 1; }
}
run "from nothing"
printf '\\relax\n\\newlabel{one}{{1}{1' > "$scratch/tiny.aux"
run "after a pass stopped while it wrote tiny.aux"
rm -f "$scratch/.tiny.sums"
printf '\\contentsline {section}{\\numberline {1}' > "$scratch/tiny.toc"
run "after a pass stopped before its seal"
echo "book-latex-test: a stopped pass's side files are thrown away"
