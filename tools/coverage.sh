# generated from chapters/25-hardening.nw; edit the book, not this file
#!/usr/bin/env bash
# usage: coverage.sh BUILD FLOOR TEX: the coverage of the last runs of the programs built
# under BUILD (with --coverage), per chapter and per layer; an HTML report in BUILD/html;
# the table for the book in TEX; fails when the library is below the figures in FLOOR.
set -euo pipefail
build=$1 floor=$2 tex=$3
mkdir -p "$build/html"
# gcovr reads the .gcda files of the objects given and the chapters the
# #line directives name; one JSON summary per layer, and one of everything.
summary() {   # summary NAME OBJECT-FOLDERS...
    local name=$1
    shift
    gcovr -r . --json-summary "$build/$name.json" "$@" > /dev/null
}
summary library "$build/obj/src" "$build/obj/learn" "$build/obj/io"
summary command "$build/obj/cmd"
summary viewer "$build/obj/viz"
summary all "$build/obj/src" "$build/obj/learn" "$build/obj/io" "$build/obj/cmd" "$build/obj/viz"
gcovr -r . --html-details "$build/html/index.html" "$build/obj/src" "$build/obj/learn" \
      "$build/obj/io" "$build/obj/cmd" "$build/obj/viz" > /dev/null
/usr/bin/env python3 - "$build" "$tex" <<'PY'
import json, sys
build, tex = sys.argv[1], sys.argv[2]
def pct(c, t):
    return 100.0 * c / t if t else 100.0
def row(name, s):
    return (name, s["line_covered"], s["line_total"], s["branch_covered"], s["branch_total"])
rows = [row(f["filename"], f) for f in sorted(json.load(open(f"{build}/all.json"))["files"],
                                               key=lambda f: f["filename"])]
layers = [row(n, json.load(open(f"{build}/{n}.json")))
          for n in ("library", "command", "viewer", "all")]
print(f"{'chapter':34} {'lines':>15} {'branches':>15}")
for name, lc, lt, bc, bt in rows + layers:
    print(f"{name:34} {lc:5d}/{lt:5d} {pct(lc, lt):5.1f}% {bc:5d}/{bt:5d} {pct(bc, bt):5.1f}%")
with open(tex, "w") as out:
    out.write("\\begin{tabular}{lrr}\nchapter & lines & branches \\\\\n\\hline\n")
    for name, lc, lt, bc, bt in rows:
        shown = name.replace('_', chr(92) + '_')
        out.write(f"\\texttt{{{shown}}} & {pct(lc, lt):.1f}\\,\\% & "
                  f"{pct(bc, bt):.1f}\\,\\% \\\\\n")
    out.write("\\hline\n")
    for name, lc, lt, bc, bt in layers:
        label = {"library": "the library (src, learn, io)", "command": "the command (cmd)",
                 "viewer": "the viewer (viz)", "all": "together"}[name]
        out.write(f"{label} & {pct(lc, lt):.1f}\\,\\% & {pct(bc, bt):.1f}\\,\\% \\\\\n")
    out.write("\\end{tabular}\n")
lib = layers[0]
with open(f"{build}/library.txt", "w") as out:
    out.write(f"lines {pct(lib[1], lib[2]):.1f}\nbranches {pct(lib[3], lib[4]):.1f}\n")
PY
read -r _ lines < <(grep '^lines ' "$floor")
read -r _ branches < <(grep '^branches ' "$floor")
read -r _ now_lines < <(grep '^lines ' "$build/library.txt")
read -r _ now_branches < <(grep '^branches ' "$build/library.txt")
echo "coverage: the library at $now_lines% of lines and $now_branches% of branches" \
     "(floor $lines% and $branches%); report in $build/html/index.html"
awk -v a="$now_lines" -v b="$lines" -v c="$now_branches" -v d="$branches" \
    'BEGIN { exit !(a + 0 >= b + 0 && c + 0 >= d + 0) }' ||
    { echo "coverage: the library is below the floor in $floor" >&2; exit 1; }
