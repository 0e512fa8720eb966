# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# Typeset the volumes of the book until every page reference, within each
# and between them, has settled; then read the logs.
# usage: tools/book-latex.sh DIR VOLUME [OTHER]   (DIR/VOLUME.tex; TEXINPUTS as pdflatex wants it)
set -euo pipefail
usage="usage: tools/book-latex.sh DIR VOLUME [OTHER]"
dir=${1:?$usage}; volume=${2:?$usage}
other=${3:-}
tools=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
sides() {    # $1: a volume; its side files that are there
    local f
    for f in "$1".aux "$1".out "$1".toc "$1".idx "$1".ind "$1".ilg "$1".xref; do
        [[ ! -e $f ]] || printf '%s\n' "$f"
    done
}
seal() {     # the side files of $1 as a finished pass left them
    local files
    mapfile -t files < <(sides "$1")
    [[ ${#files[@]} -gt 0 ]] || return 0
    md5sum -- "${files[@]}" > ".$1.sums.new" && mv -f -- ".$1.sums.new" ".$1.sums"
}
passes() {   # $1: a volume; $2: the most passes it needs
    local pass
    for ((pass = 1; pass <= $2; pass++)); do
        rm -f -- ".$1.sums"
        pdflatex -interaction=nonstopmode -halt-on-error "$1.tex" > /dev/null ||   # it writes $1.log
            { grep -A5 '^!' "$1.log"; exit 1; }
        [[ ! -e $1.idx ]] || makeindex -q "$1.idx"
        seal "$1"
        [[ $pass -lt 2 ]] || grep -q 'Rerun to get' "$1.log" || break
    done
    rm -f -- ".$1.sums"
    grep -E '^\\(newsublabel|newlabel|pendingsublabel|nwixadd)\{' "$1.aux" > "$1.xref.new" || true
    mv -f -- "$1.xref.new" "$1.xref"
    seal "$1"
}
for v in $volume $other; do  # side files a stopped pass left are thrown away
    [[ -e .$v.sums ]] && md5sum --status -c -- ".$v.sums" 2> /dev/null ||
        rm -f -- "$v".aux "$v".out "$v".toc "$v".idx "$v".ind "$v".ilg "$v".xref ".$v.sums"
done
if [[ -z "$other" ]]; then
    passes "$volume" 5
else
    for round in 1 2 3 4; do
        before=$({ cat "$other.xref" 2> /dev/null || true; } | md5sum)
        if [[ -e $other.xref ]]; then passes "$volume" 5; else passes "$volume" 1; fi
        passes "$other" 5
        [[ $before != "$(md5sum < "$other.xref")" ]] || break
        [[ $round -lt 4 ]] ||
            { echo "book-latex: the page references between $volume and $other still move"; exit 1; }
    done
    echo "book-latex: $volume and $other settled in $round rounds"
fi
status=0
for v in $volume $other; do
    if grep -E '^LaTeX Warning: (Reference|Citation).*undefined' "$v.log"; then status=1; fi
    bash "$tools/book-log-check.sh" "$v.log" "$v.tex" || status=1
done
exit $status
