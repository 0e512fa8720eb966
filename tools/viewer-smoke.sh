# generated from chapters/30-tests.nw; edit the book, not this file
#!/usr/bin/env bash
# The viewer in a real window under Xvfb: it must open one and save a PNG.
# usage: tools/viewer-smoke.sh PATH_TO_MHA_VIZ
set -euo pipefail
viz=$(realpath "${1:?usage: tools/viewer-smoke.sh PATH_TO_MHA_VIZ}"); dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$(cd "$dir" && xvfb-run -a -s "-screen 0 1400x900x24" env SDL_VIDEODRIVER=x11 \
      "$viz" --press s --quit-after 40 2>&1) || { echo "$out"; exit 1; }
grep -q '^mha-viz: window 1280x800, renderer .*, driver x11$' <<< "$out" ||
    { echo "viewer-smoke: no window under Xvfb: $out"; exit 1; }
[[ "$(head -c 8 "$dir/mha-viz-001.png" | od -An -tx1 | tr -d ' ')" == 89504e470d0a1a0a ]] ||
    { echo "viewer-smoke: the s key saved no PNG from the window"; exit 1; }
small=$(cd "$dir" && xvfb-run -a -s "-screen 0 1024x768x24" env SDL_VIDEODRIVER=x11 \
        "$viz" --quit-after 5 2>&1) || { echo "$small"; exit 1; }
grep -q '^mha-viz: window 1024x768, renderer .*, driver x11$' <<< "$small" ||
    { echo "viewer-smoke: the window does not fit a 1024x768 screen: $small"; exit 1; }
isa=$(MHA_ISA=none "$viz" --quit-after 1 2>&1) && status=0 || status=$?
[[ $status == 2 && $isa == "mha-viz: MHA_ISA: unknown instruction set 'none'" ]] ||
    { echo "viewer-smoke: MHA_ISA=none gave status $status and: $isa"; exit 1; }
echo "viewer-smoke: a real window under Xvfb, and its PNG: $out"
