# generated from chapters/24-measuring.nw; edit the book, not this file
#!/usr/bin/env bash
# make bench: every speed table of the book, from one run on this machine.
# usage: tools/bench.sh BUILD_DIR THREADS "COMPILER AND FLAGS"
set -euo pipefail
build=$1; threads=$2; compiler=$3
m="$build/mha bench"; o="$build/sgemm-openblas"
py="/usr/bin/python3 bench/bench_torch.py --reps 7"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
day=$(date +%Y-%m-%d)
echo "bench: $cpu, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p figures
for shape in "--batch 1 --seq 256 --dim 256 --heads 4" "--batch 2 --seq 512 --dim 512 --heads 8"; do
    for impl in naive batched; do $m --impl $impl $shape --threads 1 --reps 7; done
done | tee "$build/bench.txt"
awk -v cpu="$cpu" -v cores="$(nproc)" -v day="$day" -v cc="$compiler" '
    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      shape = v["B"] " & " v["L"] " & " v["E"] " & " v["H"]
      if (v["impl"] == "naive") base[shape] = v["ms"]
      rows[++n] = shape " & " v["impl"] " & " v["ms"] " & " v["gflops"] " & " \
                  sprintf("%.1f", base[shape] / v["ms"]) "\\\\" }
    END { print "\\begin{tabular}{rrrrlrrr}\\toprule"
          print "$B$ & $L$ & $E$ & $H$ & version & ms (median) & GFLOP/s & speed-up \\\\ \\midrule"
          for (i = 1; i <= n; i++) print rows[i]
          print "\\bottomrule\\end{tabular}\\\\[1ex]"
          print "\\footnotesize Measured " day " on " cpu " (" cores " cores, one used), " cc "." }' \
    "$build/bench.txt" > figures/bench-batched.tex
big="--batch 1 --seq 2048 --dim 768 --heads 12"; batch="--batch 8 --seq 512 --dim 512 --heads 8"
small="--batch 1 --seq 256 --dim 256 --heads 4"; t=$threads
{
    for n in 1 $t; do $m --peak --threads $n; $m --bandwidth --threads $n; done
    $m --denormals
    for i in naive batched; do $m --impl $i $small --threads 1 --reps 7; done
    for n in 1 $t; do $m --impl blocked $small --threads $n --reps 7; done
    for n in 1 $t; do $py --threads $n "1 256 256 4 0"; done; $o 1 256 256 4 0 7 $t
    for n in 1 $t; do $m --impl blocked $big --threads $n --reps 7; done
    for p in proj attention; do $m --impl blocked $big --threads $t --reps 7 --part $p; done
    $m --impl blocked $big --threads $t --reps 7 --part proj --half-kc
    for n in 1 $t; do $py --threads $n "1 2048 768 12 0"; done; $o 1 2048 768 12 0 7 $t
    $m --impl blocked $big --causal --threads $t --reps 7
    for n in 1 $t; do $py --threads $n "1 2048 768 12 1"; done; $o 1 2048 768 12 1 7 $t
    $m --impl batched $batch --threads 1 --reps 3
    for n in 1 $t; do $m --impl blocked $batch --threads $n --reps 7; done
    for i in scalar avx2; do MHA_ISA=$i $m --impl blocked $batch --threads 1 --reps 7; done
    for n in 1 $t; do $py --threads $n "8 512 512 8 0"; done; $o 8 512 512 8 0 7 $t
    for i in naive batched; do
        $m --decode --cache 4096 --dim 768 --heads 12 --impl $i --threads 1 --reps 15
    done
    for n in 1 $t; do
        $m --decode --cache 4096 --dim 768 --heads 12 --impl blocked --threads $n --reps 15
    done
    for n in 1 $t; do $py --threads $n --reps 15 --decode "1 768 12 4096"; done
} | tee "$build/bench-fast.txt"
cp "$build/bench-fast.txt" figures/bench-fast.txt
{
    dense="--batch 4 --seq 512 --dim 512 --heads 8"; long="--batch 1 --seq 2048 --dim 768 --heads 12"
    for n in 1 $t; do $m --backward $dense --threads $n --reps 5; done
    for n in 1 $t; do $py --threads $n --reps 5 --backward "4 512 512 8 0"; done
    for n in 1 $t; do $m --backward $long --causal --threads $n --reps 5; done
    for n in 1 $t; do $py --threads $n --reps 5 --backward "1 2048 768 12 1"; done
    for n in 1 $t; do
        for r in 1 2 3; do
            start=$(date +%s%N); OMP_NUM_THREADS=$n "$build/mha" train > /dev/null
            echo $(( ($(date +%s%N) - start) / 1000000 ))
        done | sort -n | sed -n 2p | sed "s/^/impl=ours train=1 steps=1000 threads=$n ms=/"
    done
    for n in 1 $t; do $py --threads $n --train "1000"; done
} | tee "$build/bench-learning.txt"
cp "$build/bench-learning.txt" figures/bench-learning.txt
/usr/bin/python3 figures/bench_report.py "$build/bench-fast.txt" figures \
    "$cpu, $(nproc) cores, measured $day with $compiler"
mkdir -p "$build/roofline" && cp figures/roofline.tex "$build/roofline/"
(cd "$build/roofline" && pdflatex -interaction=nonstopmode -halt-on-error roofline.tex > roofline.log)
cp "$build/roofline/roofline.pdf" figures/roofline.pdf
echo "bench: wrote figures/bench-batched.tex bench-fast.tex bench-steps.tex" \
     "bench-decode.tex bench-numbers.tex bench-backward.tex bench-training.tex" \
     "bench-learning-numbers.tex roofline.pdf"
