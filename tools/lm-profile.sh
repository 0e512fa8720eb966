# generated from chapters/24-measuring.nw; edit the book, not this file
#!/usr/bin/env bash
# make profile-lm: where the small GPT's training step spends its time, part by
# part, from perf's samples of a few steps on each instruction set of this machine.
# usage: tools/lm-profile.sh BUILD_DIR THREADS
set -euo pipefail
build=$1; threads=$2; steps=${PROFILE_STEPS:-20}     # fewer only to try the script out
command -v perf > /dev/null || { echo "mha: perf: not installed (Debian's linux-perf)" >&2; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
cpu="$cpu (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1),"
cpu="$cpu model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat chapters/*.nw > "$dir/text"
isas=scalar
grep -qw avx2 /proc/cpuinfo && isas="avx2 $isas"
grep -qw avx512f /proc/cpuinfo && isas="avx512 $isas"
perf_version=$(perf --version | cut -d' ' -f3)
{
    echo "# $cpu, $(nproc) cores, $(date +%Y-%m-%d), $threads threads, perf $perf_version"
    for isa in $isas; do
        rm -rf "$dir/model" "$dir/state"
        start=$(date +%s.%N)
        MHA_ISA=$isa OMP_NUM_THREADS=$threads perf record -q -F 999 -o "$dir/perf.data" -- \
            "$build/mha" lm train --text "$dir/text" --tokenizer models/austen \
            --out "$dir/model" --state "$dir/state" --layers 4 --heads 8 --dim 256 \
            --context 128 --batch 16 --steps $steps --eval-every $steps > /dev/null 2> "$dir/err"
        end=$(date +%s.%N)
        awk -v isa="$isa" -v t="$threads" -v s=$steps -v a="$start" -v b="$end" \
            'BEGIN { printf "run=%s threads=%s steps=%s seconds=%.2f\n", isa, t, s, b - a }'
        perf report -i "$dir/perf.data" --stdio --no-children --sort dso,sym \
                -F sample,dso,sym -t '|' 2> /dev/null | grep -v '^#' |
            awk -F'|' -v isa="$isa" 'function part(dso, sym) {
                                         if (dso ~ /libgomp/) return "waiting"
                                         if (dso ~ /kernel/) return "kernel"
                                         if (sym ~ /pack_(rows|cols|strided)/) return "packing"
                                         if (sym ~ /product_tile|product_plain|fast_product/) return "products"
                                         if (sym ~ /gelu|erf/) return "gelu"
                                         if (sym ~ /layer_norm/) return "layer_norm"
                                         if (sym ~ /adamw|clip/) return "adamw"
                                         if (sym ~ /column_sums/) return "bias"
                                         if (sym ~ /lm_loss|row_max|exp|fast_scale/) return "softmax"
                                         if (sym ~ /fast_scores|fast_pv|direct|dot_|mask_tile|key_tile/) return "attention"
                                         if (sym ~ /fast_attend|online_update|softmax_grad|key_masked/) return "attention"
                                         if (sym ~ /add_rows|input_projection_grads|memmove|memcpy|memset/) return "copies"
                                         if (sym ~ /finite|_range$/) return "checks"
                                         if (sym ~ /bpe_|encode|is_letter|merge|npy|compress|model_init|cos|sin|log|sha256|write|put/)
                                             return "setup"
                                         return "other"
                                     }
                                     NF >= 3 { n[part($2, $3)] += $1 }
                                     END { for (p in n) printf "part=%s run=%s samples=%d\n", p, isa, n[p] }'
    done
} > "$build/lm-profile.txt"
mv "$build/lm-profile.txt" figures/lm-profile.txt
echo "profile-lm: wrote figures/lm-profile.txt"
