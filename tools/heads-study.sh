# generated from chapters/17-austen-heads.nw; edit the book, not this file
#!/bin/bash
# Usage: bash tools/heads-study.sh MHA TRAIN VALID TOKENIZER WORK RESULTS
# Trains one small GPT per number of heads in HEADS and seed in SEEDS, all of
# the same width and on the same number of tokens, scores each on VALID, and
# writes one row per run to the table RESULTS (written whole after the runs).
# A run whose row is already in RESULTS is skipped; a run that was stopped
# carries on from its state in WORK.  JOBS runs go side by side, one thread each.
set -euo pipefail
usage="usage: heads-study.sh MHA TRAIN VALID TOKENIZER WORK RESULTS"
mha=${1:?$usage} train=${2:?$usage} valid=${3:?$usage} tokenizer=${4:?$usage}
work=${5:?$usage} results=${6:?$usage}
heads=${HEADS:-1 2 4 8 16} seeds=${SEEDS:-1 2 3} jobs=${JOBS:-2}
layers=${LAYERS:-2} dim=${DIM:-128} context=${CONTEXT:-64} batch=${BATCH:-16}
steps=${STEPS:-2000} lr=${LR:-0.003} every=${EVAL_EVERY:-500}
for f in "$mha" "$train" "$valid" "$tokenizer/merges.txt" "$tokenizer/vocab.txt"; do
    [[ -r $f ]] || { echo "heads-study: $f: not found" >&2; exit 1; }
done
mkdir -p "$work"
state_field() { sed -n "s/^$1 //p" "$2/state.txt"; }
run() {                                     # run H SEED: writes WORK/hH-sSEED.row
    local h=$1 s=$2 name="h$1-s$2" resumed=0 start seconds score f
    local log="$work/$name.log" state="$work/$name.state"
    local -a recipe=(--layers "$layers" --heads "$h" --dim "$dim" --context "$context"
                     --batch "$batch" --steps "$steps" --seed "$s")
    start=$(date +%s)
    if [[ -e $state/state.txt ]]; then
        for ((f = 0; f < ${#recipe[@]}; f += 2)); do
            [[ $(state_field "${recipe[f]#--}" "$state") == "${recipe[f + 1]}" ]] || {
                echo "heads-study: $state: a run with another ${recipe[f]}; remove it" >&2
                return 1; }
        done
        resumed=1
        OMP_NUM_THREADS=1 "$mha" lm train --text "$train" --valid "$valid" \
            --out "$work/$name" --resume "$state" > "$log" 2>&1 || return 1
    else
        OMP_NUM_THREADS=1 "$mha" lm train --text "$train" --valid "$valid" \
            --out "$work/$name" --state "$state" --tokenizer "$tokenizer" "${recipe[@]}" \
            --lr "$lr" --eval-every "$every" > "$log" 2>&1 || return 1
    fi
    seconds=$(($(date +%s) - start))
    [[ $(state_field step "$state") == "$steps" ]] || return 1
    score=$(OMP_NUM_THREADS=1 "$mha" lm eval "$work/$name" --text "$valid") || return 1
    local bpc=${score#*bits_per_char=} loss=${score#*loss=}
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$h" "$((dim / h))" "$s" "$(state_field layers "$state")" \
        "$(state_field dim "$state")" "$(state_field context "$state")" \
        "$(state_field batch "$state")" "$steps" "$((steps * batch * context))" \
        "$(sed -n 's/^mha lm train: \([0-9]*\) parameters.*/\1/p' "$log" | tail -n 1)" \
        "${bpc%% *}" "${loss%% *}" "$seconds" "$resumed" > "$work/$name.row.tmp"
    mv "$work/$name.row.tmp" "$work/$name.row"
}
has_row() { [[ -e $results ]] && awk -F'\t' -v h="$1" -v s="$2" \
                '$1 == h && $3 == s { found = 1 } END { exit !found }' "$results"; }
for h in $heads; do
    for s in $seeds; do
        if has_row "$h" "$s" || [[ -e $work/h$h-s$s.row ]]; then
            echo "heads-study: heads=$h seed=$s: done"
            continue
        fi
        while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
        echo "heads-study: heads=$h seed=$s: training ($work/h$h-s$s.log)"
        { run "$h" "$s" || echo "heads-study: heads=$h seed=$s: failed;" \
                                "see $work/h$h-s$s.log" >&2; } &
    done
done
wait
columns=(heads head_dim seed layers dim context batch steps tokens_seen parameters
         bits_per_char loss seconds resumed)
header=$(IFS=$'\t'; echo "${columns[*]}")
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
tmp=$(mktemp "$results.XXXXXX")
{
    printf '# heads-study\ttrain_sha256=%s\tvalid_sha256=%s\ttokenizer=%s\tcpu=%s\tthreads=1\n' \
        "$(sha256sum < "$train" | cut -d' ' -f1)" "$(sha256sum < "$valid" | cut -d' ' -f1)" \
        "$tokenizer" "$cpu"
    echo "$header"
    { [[ ! -e $results ]] || tail -n +3 "$results"
      cat /dev/null "$work"/h*-s*.row 2>/dev/null || true; } |
        sort -t$'\t' -k1,1n -k3,3n -u
} > "$tmp"
mv "$tmp" "$results"
missing=0
for h in $heads; do
    for s in $seeds; do has_row "$h" "$s" || missing=$((missing + 1)); done
done
((missing == 0)) || { echo "heads-study: $missing runs have no row in $results" >&2; exit 1; }
echo "heads-study: $results has every run"
