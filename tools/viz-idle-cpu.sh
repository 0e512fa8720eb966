# generated from chapters/42-tests-viewer.nw; edit the book, not this file
#!/usr/bin/env bash
# The viewer at rest under Xvfb: user + system time over 10 s from
# /proc/PID/stat, for a new window and for a paused one; each under 3% of a core.
# usage: tools/viz-idle-cpu.sh PATH_TO_MHA_VIZ
set -euo pipefail
viz=$(realpath "${1:?usage: tools/viz-idle-cpu.sh PATH_TO_MHA_VIZ}"); dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
command -v xvfb-run > /dev/null || { echo "viz-idle-cpu: no Xvfb here: skipped"; exit 0; }
cat > "$dir/measure.sh" << 'SCRIPT'
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
"$@" > /dev/null 2>&1 & pid=$!
sleep 4
before=$(ticks $pid) && sleep 10 && after=$(ticks $pid) || { echo gone; exit 0; }
kill $pid; wait $pid 2> /dev/null || true
echo $(( after - before ))
SCRIPT
hz=$(getconf CLK_TCK); bad=0
for name in "new window" "paused"; do
    args=(); [[ "$name" == "new window" ]] || args=(--press "  ")   # start, then pause
    used=$(xvfb-run -a -s "-screen 0 1400x900x24" env SDL_VIDEODRIVER=x11 \
           bash "$dir/measure.sh" "$viz" "${args[@]}")
    [[ "$used" != gone ]] || { echo "viz-idle-cpu: $name: the viewer did not stay open"; exit 1; }
    share=$(awk -v t="$used" -v hz="$hz" 'BEGIN {printf "%.2f", 100 * t / hz / 10}')
    echo "viz-idle-cpu: $name: $used ticks of 1/$hz s in 10 s, $share% of a core"
    awk -v s="$share" 'BEGIN {exit !(s < 3)}' || bad=1
done
exit $bad
