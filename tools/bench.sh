# generated from chapters/24-measuring.nw; edit the book, not this file
#!/usr/bin/env bash
# make bench: every speed table of the book, from one run on this machine.
# usage: tools/bench.sh BUILD_DIR THREADS "COMPILER AND FLAGS"
set -euo pipefail
build=$1; threads=$2; compiler=$3
m="$build/mha bench"; o="$build/sgemm-openblas"
reps=${BENCH_REPS:-7}                         # fewer only to try the script out
py="/usr/bin/python3 bench/bench_torch.py --reps $reps"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cpu="$cpu (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1),"
cpu="$cpu model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
day=$(date +%Y-%m-%d)
mkdir -p figures
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: $cpu, $(nproc) cores, load average $load"
blas_run() {   # blas_run CORE ARGS...: the OpenBLAS program on CORE's kernels
    local core=$1   # ("own": on the kernels OpenBLAS chooses)
    shift
    if [[ $core == own ]]; then env -u OPENBLAS_CORETYPE "$o" "$@"
    else OPENBLAS_CORETYPE=$core "$o" "$@"; fi
}
own=$(OPENBLAS_VERBOSE=2 blas_run own 1 16 16 1 0 1 1 2>&1 | sed -n 's/^Core: //p' | head -1)
if grep -qw avx512f /proc/cpuinfo; then widest=SkylakeX
elif grep -qw avx2 /proc/cpuinfo; then widest=Haswell; else widest=own; fi
cores=$(printf '%s\n' own "${OPENBLAS_CORETYPE:-own}" "$widest" | awk '!seen[$0]++')
for round in 1 2 3 4 5; do
    for core in $cores; do
        echo "blas_core=$core blas_ms=$(blas_run "$core" 1 2048 768 12 0 3 "$threads" |
                                        sed -n 's/.* ms=\([^ ]*\) .*part=proj$/\1/p')"
    done
done > "$build/bench-blas-cores.txt"
best=$(for core in $cores; do
           grep "^blas_core=$core " "$build/bench-blas-cores.txt" | cut -d= -f3 | sort -g |
               sed -n "3s/^/$core /p"
       done | sort -k2 -g | awk 'NR == 1 && $2 > 0 { print $1 }')
[[ -n $best ]] || best=own
if [[ $best == own ]]; then unset OPENBLAS_CORETYPE; blas=$own
else export OPENBLAS_CORETYPE=$best; blas=$best; fi
l3=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2> /dev/null || true)
case $l3 in *K) l3=$(( ${l3%K} >> 10 )) ;; *M) l3=${l3%M} ;; *) l3= ;; esac
said="getconf says $(( $(getconf LEVEL3_CACHE_SIZE 2> /dev/null || echo 0) >> 20 )) MiB"
: > "$build/bench-sweep.txt"
if [[ -n $l3 ]]; then
    l3_from="from sysfs; $said"
else
    for r in 1 2 3; do
        for mib in 4 8 16 24 32 48 64 128 256 512; do
            $m --bandwidth --mib $mib --threads $threads | sed "s/^bandwidth_gbs=/sweep_gbs=/"
        done
    done > "$build/bench-sweep.txt"
    l3=$(/usr/bin/python3 figures/bench_report.py --l3 "$build/bench-sweep.txt")
    if [[ -n $l3 ]]; then l3_from="measured"; else l3_from="not found by a read sweep"; fi
    l3_from="$l3_from: sysfs has no cache description; $said"
fi
cc -O2 -pthread -o "$build/limits-check" bench/limits_check.c
{ for n in 1 $threads; do $m --peak --threads $n; $m --bandwidth --threads $n; done
  "$build/limits-check" "$threads" 512; cat "$build/bench-sweep.txt"
  cat "$build/bench-blas-cores.txt"
  /usr/bin/python3 figures/bench_report.py --versions
  [[ -z $l3 ]] || echo "l3_mib=$l3"
  echo "load_average=${load// /,} when=start"; } | tee "$build/bench-machine.txt"
limit() { sed -n "s/^$1=\([0-9.]*\) threads=$threads .*/\1/p" "$build/bench-machine.txt" | tail -n 1; }
if [[ -n $l3 ]]; then cache="$l3 MiB of L3"; else cache="L3 of unknown size"; fi
machine="$cpu, $(nproc) cores, $cache ($l3_from);"
machine="$machine FMA peak $(limit peak_gflops) GFLOP/s and read bandwidth"
machine="$machine $(limit bandwidth_gbs) GB/s on $threads threads (checked by an independent"
machine="$machine program: $(limit check_peak_gflops) GFLOP/s and $(limit check_bandwidth_gbs) GB/s);"
machine="$machine OpenBLAS's $blas kernels; $day, $compiler"
lm_shape="--layers 4 --heads 8 --dim 256 --context 128 --batch 16"
lm_line="impl=ours lm=1 B=16 T=128 E=256 H=8 layers=4 V=2048 reps=3"
lm_dir=$(mktemp -d); trap 'rm -rf "$lm_dir"' EXIT
cat chapters/*.nw > "$lm_dir/text"
lm_rate() {    # lm_rate THREADS: the median tokens per second of three runs of 40 steps
    for r in 1 2 3; do
        rm -rf "$lm_dir/model" "$lm_dir/state"
        OMP_NUM_THREADS=$1 "$build/mha" lm train --text "$lm_dir/text" \
            --tokenizer models/austen --out "$lm_dir/model" --state "$lm_dir/state" \
            $lm_shape --steps 40 --eval-every 40 |
            sed -n 's|^step=40/40 .* tokens/s=\([0-9]*\) .*|\1|p'
    done | sort -n | sed -n 2p
}
{
    echo "# $machine"
    cat "$build/bench-machine.txt"
    for n in 1 $threads; do
        lm_rate "$n" | sed "s/^/$lm_line threads=$n tokens_per_s=/"
    done
    if [[ $threads -gt 1 ]] && command -v taskset > /dev/null; then
        taskset -c $((threads - 1)) sh -c 'while :; do :; done' &
        busy=$!
        lm_rate "$threads" |
            sed "s/^/impl=busy ${lm_line#impl=ours } threads=$threads tokens_per_s=/"
        kill "$busy"
    fi
    for n in 1 $threads; do
        for b in 1 $threads; do
            $py --threads $n --blas-threads $b --lm "16 128 256 8 4 2048"
        done
    done
} | tee "$build/bench-lm.txt"
cp "$build/bench-lm.txt" figures/bench-lm.txt
[[ "${BENCH_ONLY:-}" != lm ]] || exit 0
for shape in "--batch 1 --seq 256 --dim 256 --heads 4" "--batch 2 --seq 512 --dim 512 --heads 8"; do
    for impl in naive batched; do $m --impl $impl $shape --threads 1 --reps $reps; done
done | tee "$build/bench.txt"
awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      shape = v["B"] " & " v["L"] " & " v["E"] " & " v["H"]
      if (v["impl"] == "naive") base[shape] = v["ms"]
      rows[++n] = shape " & " v["impl"] " & " v["ms"] " & " v["gflops"] " & " \
                  sprintf("%.1f", base[shape] / v["ms"]) "\\\\" }
    END { print "\\begin{tabular}{rrrrlrrr}\\toprule"
          print "$B$ & $L$ & $E$ & $H$ & version & ms (median) & GFLOP/s & speed-up \\\\ \\midrule"
          for (i = 1; i <= n; i++) print rows[i]
          print "\\bottomrule\\end{tabular}\\\\[1ex]"
          print "\\footnotesize Measured on the machine of \\setupboxref." }' \
    "$build/bench.txt" > figures/bench-batched.tex
big="--batch 1 --seq 2048 --dim 768 --heads 12"; batch="--batch 8 --seq 512 --dim 512 --heads 8"
small="--batch 1 --seq 256 --dim 256 --heads 4"; wide="--batch 4 --seq 1024 --dim 1024 --heads 16"
t=$threads
{
    cat "$build/bench-machine.txt"
    $m --denormals
    for i in naive batched; do $m --impl $i $small --threads 1 --reps $reps; done
    for n in 1 $t; do $m --impl blocked $small --threads $n --reps $reps; done
    for n in 1 $t; do $py --threads $n "1 256 256 4 0"; done; $o 1 256 256 4 0 $reps $t
    for n in 1 $t; do $m --impl blocked $big --threads $n --reps $reps; done
    for p in proj attention; do $m --impl blocked $big --threads $t --reps $reps --part $p; done
    $m --impl blocked $big --threads 1 --reps $reps --part attention
    if [[ -f $build/onnx/node_modules/onnxruntime-node/package.json ]] && command -v node > /dev/null
    then
        for n in 1 $t; do
            /usr/bin/python3 bench/bench_onnx.py --modules "$build/onnx/node_modules" --reps $reps \
                --threads $n "1 2048 768 12 0" || echo "bench: ONNX Runtime failed on $n threads" >&2
        done
    else
        echo "bench: ONNX Runtime is not installed (make deps-onnx): its rows are left out" >&2
    fi
    $m --impl blocked $big --threads $t --reps $reps --part proj --half-kc
    for n in 1 $t; do $py --threads $n "1 2048 768 12 0"; done; $o 1 2048 768 12 0 $reps $t
    $m --impl blocked $big --causal --threads $t --reps $reps
    for n in 1 $t; do $py --threads $n "1 2048 768 12 1"; done; $o 1 2048 768 12 1 $reps $t
    $m --impl batched $batch --threads 1 --reps $((reps < 3 ? reps : 3))
    for n in 1 $t; do $m --impl blocked $batch --threads $n --reps $reps; done
    for i in scalar avx2; do MHA_ISA=$i $m --impl blocked $batch --threads 1 --reps $reps; done
    for n in 1 $t; do $py --threads $n "8 512 512 8 0"; done; $o 8 512 512 8 0 $reps $t
    $m --impl blocked $wide --causal --threads $t --reps $reps
    for n in 1 $t; do $py --threads $n "4 1024 1024 16 1"; done; $o 4 1024 1024 16 1 $reps $t
    for s in "$batch" "$big" "$big --causal" "$wide --causal"; do
        $m --impl blocked $s --threads $t --reps $reps --part stages
    done
    for i in naive batched; do
        $m --decode --cache 4096 --dim 768 --heads 12 --impl $i --threads 1 --reps $((2 * reps + 1))
    done
    $m --decode --cache 4096 --dim 768 --heads 12 --impl blocked --threads 1 \
       --reps $((2 * reps + 1))
    for n in 1 $t; do $py --threads $n --reps $((2 * reps + 1)) --decode "1 768 12 4096"; done
    for r in $(seq "${BENCH_ROUNDS:-5}"); do
        { $m --bandwidth --threads $t; "$build/limits-check" "$t" 512 | grep '^check_bandwidth'
          $m --decode --cache 4096 --dim 768 --heads 12 --impl blocked --threads $t --reps $reps
          for T in 16384 65536; do
              for g in 12 3; do
                  $m --decode --cache $T --dim 768 --heads 12 --kv-heads $g --impl blocked \
                     --threads $t --reps $reps
              done
          done
          $m --decode --cache 262144 --dim 768 --heads 12 --kv-heads 3 --impl blocked --threads $t \
             --reps $reps
          $m --bandwidth --threads 1
          $m --decode --cache 65536 --dim 768 --heads 12 --impl blocked --threads 1 --reps $reps
        } | sed "s/\$/ round=$r/"
    done
    for T in 16384 65536; do
        for n in 1 $t; do $py --threads $n --reps $((2 * reps + 1)) --decode "1 768 12 $T"; done
    done
    if [[ -f $build/onnx/node_modules/onnxruntime-node/package.json ]] && command -v node > /dev/null
    then
        for T in 4096 16384 65536; do
            for n in 1 $t; do
                /usr/bin/python3 bench/bench_onnx.py --modules "$build/onnx/node_modules" \
                    --reps $((2 * reps + 1)) --threads $n --decode "1 768 12 $T" ||
                    echo "bench: ONNX Runtime's decoding step failed on $n threads" >&2
            done
        done
    fi
} | tee "$build/bench-fast.txt"
cp "$build/bench-fast.txt" figures/bench-fast.txt
{
    dense="--batch 4 --seq 512 --dim 512 --heads 8"; long="--batch 1 --seq 2048 --dim 768 --heads 12"
    for n in 1 $t; do $m --backward $dense --threads $n --reps 5; done
    for n in 1 $t; do $py --threads $n --reps 5 --backward "4 512 512 8 0"; done
    for n in 1 $t; do $m --backward $long --causal --threads $n --reps 5; done
    for n in 1 $t; do $py --threads $n --reps 5 --backward "1 2048 768 12 1"; done
    for s in "$dense" "$long --causal"; do $m --backward $s --threads $t --reps 5 --part stages; done
    for n in 1 $t; do
        for r in 1 2 3; do
            start=$(date +%s%N); OMP_NUM_THREADS=$n "$build/mha" train > /dev/null
            echo $(( ($(date +%s%N) - start) / 1000000 ))
        done | sort -n | sed -n 2p | sed "s/^/impl=ours train=1 steps=1000 threads=$n ms=/"
    done
    for n in 1 $t; do
        for b in 1 $t; do $py --threads $n --blas-threads $b --train "1000"; done
    done
} | tee "$build/bench-learning.txt"
cp "$build/bench-learning.txt" figures/bench-learning.txt
/usr/bin/python3 figures/bench_report.py "$build/bench-fast.txt" figures "$machine"
mkdir -p "$build/roofline" && cp figures/roofline.tex "$build/roofline/"
(cd "$build/roofline" && pdflatex -interaction=nonstopmode -halt-on-error roofline.tex > roofline.log)
cp "$build/roofline/roofline.pdf" figures/roofline.pdf
echo "bench: wrote figures/bench-batched.tex bench-fast.tex bench-steps.tex" \
     "bench-stages.tex bench-decode.tex bench-decode-first.tex bench-numbers.tex" \
     "bench-backward.tex" \
     "bench-training.tex bench-learning-numbers.tex roofline.pdf"
