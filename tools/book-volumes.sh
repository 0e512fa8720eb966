# generated from chapters/27-book-tables.nw; edit the book, not this file
#!/usr/bin/env bash
# One volume of the book, as LaTeX, from the whole web.
# usage: tools/book-volumes.sh book|companion FILE...   (the web's files, in tangle order)
set -euo pipefail
volume=${1:?usage: tools/book-volumes.sh book|companion FILE...}; shift
[[ "$volume" == book || "$volume" == companion ]] ||
    { echo "book-volumes: no volume $volume" >&2; exit 2; }
lib=$(sed -n 's/^LIB=//p' "$(command -v noweave)")
order=$(mktemp); trap 'rm -f "$order"' EXIT
cat > "$order" <<'ORDER'
book book.nw
book \part{The layer}
book chapters/01-shape.nw
book chapters/02-sdpa.nw
book chapters/03-naive.nw
book chapters/04-batched.nw
book chapters/05-masking.nw
book chapters/06-kv-cache.nw
book chapters/09-backward.nw
book chapters/09-transformer-block.nw
book \part{Watching heads}
book chapters/10-terminal-heads.nw
book chapters/11-designed-heads.nw
book chapters/12-viewer.nw
book chapters/13-learning.nw
book chapters/14-training-viewer.nw
book chapters/15-language-model.nw
book chapters/16-austen-model.nw
book chapters/17-austen-heads.nw
book chapters/18-austen-viewer.nw
book \part{Speed}
book chapters/07-simd.nw
book chapters/08-fast-attention.nw
book chapters/09-fast-backward.nw
book chapters/24-measuring.nw
book \appendix
book chapters/19-npy-format.nw
book chapters/19-mha-command.nw
book chapters/94-glossary.nw
book chapters/95-answers.nw
book chapters/99-indexes.nw
companion book.nw
companion \part{Listings of the book}
companion @listings
companion \part{The command and the viewer}
companion chapters/20-command.nw
companion chapters/21-decode-command.nw
companion chapters/22-backward-command.nw
companion chapters/23-demo-command.nw
companion chapters/23-train-command.nw
companion chapters/23-writing-results.nw
companion chapters/28-viewer-plumbing.nw
companion \part{The checks}
companion chapters/25-hardening.nw
companion chapters/26-exercises.nw
companion chapters/27-book-tables.nw
companion chapters/30-tests.nw
companion chapters/31-tests-shape.nw
companion chapters/32-tests-sdpa.nw
companion chapters/33-tests-naive.nw
companion chapters/34-tests-batched.nw
companion chapters/35-tests-masking.nw
companion chapters/36-tests-kv-cache.nw
companion chapters/37-tests-fast.nw
companion chapters/39-tests-backward.nw
companion chapters/39-tests-fast-backward.nw
companion chapters/39-tests-transformer-block.nw
companion chapters/40-tests-demo.nw
companion chapters/41-tests-designed.nw
companion chapters/42-tests-viewer.nw
companion chapters/43-tests-learning.nw
companion chapters/44-tests-training-viewer.nw
companion chapters/45-tests-command.nw
companion chapters/46-tests-language-model.nw
companion chapters/47-tests-austen-model.nw
companion chapters/48-tests-austen-heads.nw
companion chapters/49-tests-austen-viewer.nw
companion chapters/99-indexes.nw
ORDER
"$lib/markup" "$@" | "$lib/finduses" |
    grep -v -x -e '@index use MHA_OK' -e '@index use mha_status' | "$lib/noidx" -delay |
    awk -v volume="$volume" -v order="$order" -f <(cat <<'AWK'
function stop(why) { print "book-volumes: " why > "/dev/stderr"; stopped = 1; exit 1 }
BEGIN {
    while ((getline l < order) > 0) {
        split(l, field, " "); item = substr(l, length(field[1]) + 2)
        if (item !~ /^[\\@]/) { placed[item] = placed[item] " " field[1] }
        if (field[1] == volume) { n++; want[n] = item }
        if (field[1] == "book" && item !~ /^[\\@]/) { nbook++; book_file[nbook] = item }
    }
}
{ line[NR] = $0 }
/^@file / { if (open) stop(file ": %companion without %end companion")
            key = $2; if (match(key, /(chapters\/)?[^\/]+$/)) key = substr(key, RSTART)
            file = key; first[file] = NR; files[++nfiles] = file }
file != "" { last[file] = NR }
/^@begin code / { code[file] = 1; docs = 0 }
/^@begin docs / { docs = 1; docnum = $3 }
/^@end docs / { docs = 0 }
docs && (previous == "@nl" || previous ~ /^@begin docs /) && $0 ~ /^@text %companion( .*)?$/ {
    if (open) stop(file ": %companion inside a run")
    open = 1; runs[file] = runs[file] " " (++nruns); run_from[nruns] = NR; run_docs[nruns] = docnum
    run_title[nruns] = substr($0, 17); sub(/^ +/, "", run_title[nruns])
}
docs && (previous == "@nl" || previous ~ /^@begin docs /) && $0 ~ /^@text %end companion[ \t]*$/ {
    if (!open) stop(file ": %end companion outside a run")
    open = 0; run_to[nruns] = NR; run_end_docs[nruns] = docnum
    for (k = run_from[nruns]; k <= NR + 1; k++) sent[k] = 1
}
open && /^@defn / { defined_in_run[substr($0, 7)] = file }
open && (/^@text %exercise / || /\\begin\{figure/) { must_stay[file] = 1 }
/^@text %exercise .*chunk="/ { match($0, /chunk="[^"]*"/)
                               exercise_chunk[substr($0, RSTART + 7, RLENGTH - 8)] = 1 }
/^@xref beginchunks$/ { lists_from = NR }
/^@index endindex$/   { lists_to = NR }
{ previous = $0 }
END {
    if (stopped) exit 1
    if (open) stop(file ": %companion without %end companion")
    for (f in must_stay) stop(f ": a run sent to the companion holds a figure or an exercise")
    for (c in defined_in_run)
        if (c in exercise_chunk)
            stop(defined_in_run[c] ": a run sent to the companion defines the exercise's chunk: " c)
    for (i = 1; i <= nfiles; i++) {
        f = files[i]
        if (!(f in placed)) {
            print "book-volumes: " f " is in neither volume" > "/dev/stderr"; exit 1 }
        if (code[f] && split(placed[f], v, " ") > 1) {
            print "book-volumes: " f " has code and is in both volumes" > "/dev/stderr"; exit 1 }
    }
    for (i = 1; i <= n; i++) {
        if (want[i] ~ /^\\/) {
            out[++nout] = "@begin docs 0"; out[++nout] = "@text " want[i]
            out[++nout] = "@nl"; out[++nout] = "@end docs 0"
        } else if (want[i] == "@listings") {
            for (b = 1; b <= nbook; b++) {
                f = book_file[b]
                if (!(f in runs)) continue
                out[++nout] = line[first[f]]
                title = ""; label = ""
                for (k = first[f]; k <= last[f] && (title == "" || label == ""); k++) {
                    if (title == "" && line[k] ~ /^@text \\chapter/) title = k
                    if (label == "" && match(line[k], /\\label\{ch:[^}]*\}/))
                        label = substr(line[k], RSTART + 7, RLENGTH - 8)
                }
                out[++nout] = "@begin docs 0"
                for (k = title; k != "" && line[k] != "@nl"; k++) out[++nout] = line[k]
                out[++nout] = "@nl"
                out[++nout] = "@text The listings of Chapter~\\ref{" label "} that are its plumbing" \
                              " rather than its ideas, in the order in which the chapter holds them."
                out[++nout] = "@nl"; out[++nout] = "@end docs 0"
                split(substr(runs[f], 2), r, " ")
                for (j = 1; j in r; j++) {
                    out[++nout] = "@begin docs " run_docs[r[j]]
                    if (run_title[r[j]] != "") {
                        out[++nout] = "@text \\section{" run_title[r[j]] "}"; out[++nout] = "@nl" }
                    for (k = run_from[r[j]] + 2; k < run_to[r[j]]; k++)
                        if (k < lists_from || k > lists_to) out[++nout] = line[k]
                    out[++nout] = "@end docs " run_end_docs[r[j]]
                }
            }
        } else if (want[i] in first) {
            for (k = first[want[i]]; k <= last[want[i]]; k++)
                if ((k < lists_from || k > lists_to) && !(k in sent)) out[++nout] = line[k]
            if (i == 1) { out[++nout] = ""; lists_at = nout }
        }
    }
    for (o = 1; o <= nout; o++)
        if (out[o] ~ /^@xref label /) { split(out[o], w, " "); here[w[3]] = 1 }
    for (o = 1; o <= nout; o++)
        if (o == lists_at) {
                               held = ""; keep = 0
                               for (k = lists_from; k <= lists_to; k++) {
                                   l = line[k]
                                   if (l ~ /^@xref chunkbegin / || l ~ /^@index entrybegin /) { held = l; keep = 0; continue }
                                   if (held != "") {
                                       held = held "\n" l
                                       if (l ~ /^@(xref chunk(defn|use)|index entry(defn|use)) /) {
                                           split(l, w, " "); if (w[3] in here) keep = 1 }
                                       if (l ~ /^@xref chunkend$/ || l ~ /^@index entryend$/) {
                                           if (keep) print held
                                           held = "" }
                                       continue
                                   }
                                   print l
                               }
                           }
        else print out[o]
}
AWK
) | "$lib/totex" -delay |
    if [[ $volume == companion ]]; then
        sed 's/^\\newif\\ifcompanion$/&\\companiontrue/'
    else cat; fi
