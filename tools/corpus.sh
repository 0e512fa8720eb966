# generated from chapters/15-language-model.nw; edit the book, not this file
#!/bin/bash
# Usage: bash tools/corpus.sh OUTDIR -- writes OUTDIR/train.txt and OUTDIR/valid.txt
# from Debian's r-cran-janeaustenr, then prints their SHA-256.
set -euo pipefail
out=${1:?usage: corpus.sh OUTDIR}
command -v Rscript > /dev/null ||
    { echo "corpus: no Rscript ('make deps' installs r-cran-janeaustenr)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d "$out/.corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/train.txt"
: > "$tmp/valid.txt"
for novel in sensesensibility prideprejudice mansfieldpark emma northangerabbey persuasion; do
    LC_ALL=C.UTF-8 Rscript -e "writeLines(janeaustenr::$novel)" > "$tmp/novel.txt"
    lines=$(wc -l < "$tmp/novel.txt")
    first=$((lines * 9 / 10))
    cut=$(LC_ALL=C awk -v first="$first" 'NR >= first && $0 == "" { print NR; exit }' \
          "$tmp/novel.txt")
    [[ -n "$cut" ]] || { echo "corpus: $novel: no empty line after line $first" >&2; exit 1; }
    head -n "$cut" "$tmp/novel.txt" >> "$tmp/train.txt"
    tail -n +$((cut + 1)) "$tmp/novel.txt" >> "$tmp/valid.txt"
    printf '%-17s %6d lines, training part 1-%d\n' "$novel" "$lines" "$cut"
done
for part in train valid; do iconv -f UTF-8 -t UTF-8 "$tmp/$part.txt" > /dev/null; done
mv "$tmp/train.txt" "$out/train.txt"
mv "$tmp/valid.txt" "$out/valid.txt"
(cd "$out" && sha256sum train.txt valid.txt)
