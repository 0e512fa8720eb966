# generated from chapters/42-tests-viewer.nw; edit the book, not this file
#!/usr/bin/env bash
# The viewer's files in layers: no two files of viz/ use each other's
# functions or data, and no circle of them.  Prints the files from the bottom.
# usage: tools/viz-layers.sh OBJECT_DIR   (build/obj/viz)
set -euo pipefail
dir=${1:?usage: tools/viz-layers.sh OBJECT_DIR}
declare -A owner
for o in "$dir"/*.o; do
    while read -r symbol; do owner[$symbol]=$(basename "$o" .o); done \
        < <(nm --defined-only "$o" | awk '$2 ~ /^[TDRB]$/ {print $3}')
done
uses=$(for o in "$dir"/*.o; do
    f=$(basename "$o" .o); echo "$f $f"
    for symbol in $(nm --undefined-only "$o" | awk '{print $2}'); do
        t=${owner[$symbol]:-}; [[ -z "$t" || "$t" == "$f" ]] || echo "$t $f"
    done
done | sort -u)
bad=0
while read -r low high; do
    if [[ "$low" < "$high" ]] && grep -qx "$high $low" <<< "$uses"; then
        echo "viz-layers: $low.c and $high.c use each other's functions"; bad=1
    fi
done <<< "$uses"
[[ $bad == 0 ]] || exit 1
order=$(tsort <<< "$uses" 2>/dev/null) || { echo "viz-layers: a circle among:" \
    $(tsort <<< "$uses" 2>&1 >/dev/null | sed -n 's/^tsort: \([^-].*\)/\1/p' | sort -u); exit 1; }
echo "viz-layers: from the bottom:" $order
