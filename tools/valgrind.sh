# generated from chapters/25-hardening.nw; edit the book, not this file
#!/usr/bin/env bash
# make valgrind: the command-line suites and real mha runs under memcheck.
# usage: tools/valgrind.sh BUILD_DIR
set -euo pipefail
build=$(realpath "${1:?usage: tools/valgrind.sh BUILD_DIR}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; mkdir "$tmp/logs" "$tmp/jobs"
job_dir=$tmp/jobs
source "$(dirname "$0")/jobs.sh"
vg() {
    valgrind -q --error-exitcode=1 --leak-check=full --trace-children=yes \
        --trace-children-skip='/bin/*,/usr/bin/*' \
        --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
        --log-file="$tmp/logs/vg.%p" "$@"
}
impls=$("$build/mha" forward --help | sed -n 's/.*implementation: \(.*\) (default.*/\1/p')
for impl in $impls; do
    job "bench-$impl" vg "$build/mha" bench --impl "$impl" --batch 2 --seq 5 --kv-len 3 --dim 8 \
        --heads 2 --reps 2
done
job demo vg "$build/mha" demo --heads 2
language_model() {
    for i in 1 2 3 4 5 6 7 8; do
        echo "It is a truth universally acknowledged, that a single man in possession"
        echo "of a good fortune, must be in want of a wife. Emma Woodhouse, handsome,"
    done > "$tmp/text.txt"
    vg "$build/mha" lm tokenizer --text "$tmp/text.txt" --vocab 300 --out "$tmp/tok" \
        > /dev/null
    vg "$build/mha" lm encode "$tmp/tok" --text "a single man" > /dev/null
    vg "$build/mha" lm decode "$tmp/tok" 97 32 258 > /dev/null
    vg "$build/mha" lm train --text "$tmp/text.txt" --tokenizer "$tmp/tok" \
        --out "$tmp/model" \
        --layers 1 --heads 2 --dim 16 --context 16 --steps 4 --batch 2 --eval-every 2 \
        > /dev/null
    vg "$build/mha" lm eval "$tmp/model" --text "$tmp/text.txt" > /dev/null
    vg "$build/mha" lm generate "$tmp/model" --prompt "Emma" --tokens 20 --seed 3 > /dev/null
    vg "$build/mha" lm baselines --train "$tmp/text.txt" --valid "$tmp/text.txt" \
        --tokenizer "$tmp/tok" --out "$tmp/baselines.tsv" > /dev/null
}
job language-model language_model
bad_lines() {
    local bad status
    cp -r tests/golden/self_attention "$tmp/bad-heads"
    for bad in "frobnicate" "forward $tmp/nowhere --heads 2" \
               "forward $tmp/bad-heads --heads 3" "bench --seq 18446744073709551615" \
               "bench --reps 2305843009213693953 --seq 2 --dim 2"; do
        status=0; vg "$build/mha" $bad > /dev/null 2> "$tmp/err" || status=$?
        if [[ $status -ne 1 && $status -ne 2 ]] || [[ $(wc -l < "$tmp/err") -ne 1 ]]; then
            echo "valgrind: 'mha $bad' exited $status with:"; cat "$tmp/err"; exit 1
        fi
    done
}
job bad-lines bad_lines
suite() { cd tests && vg "$build/tests" --jobs=1 --filter="$1/*"; }
for name in command output program npy nan_policy fuzz_replay kv_cache backward block; do
    job "suite-$name" suite "$name"
done
golden() {   # golden CASE-FOLDER: every command and implementation on one case
    local case=$1 name heads impl
    name=$(basename "$case"); cp -r "$case" "$tmp/$name"
    heads=$(head -c 128 "$case/expected_attn_weights.npy" | LC_ALL=C tr -cd '[:print:]' |
            sed -n "s/.*'shape': ([0-9]*, \([0-9]*\),.*/\1/p")
    cp "$case/expected_out.npy" "$tmp/$name/grad_out.npy"
    for impl in $impls; do
        vg "$build/mha" forward "$tmp/$name" --heads "$heads" --impl "$impl" > /dev/null
        [[ -e "$case/key.npy" || -e "$case/attn_mask.npy" ]] ||
            vg "$build/mha" decode "$tmp/$name" --heads "$heads" --impl "$impl" > /dev/null
    done
    vg "$build/mha" backward "$tmp/$name" --heads "$heads" > /dev/null
}
for case in tests/golden/*/; do
    [[ -e "$case/expected_attn_weights.npy" ]] || continue
    job "golden-$(basename "$case")" golden "$case"
done
jobs_done
reports=$(find "$tmp/logs" -type f -size +0)
if [[ -n "$reports" ]]; then cat $reports; echo "valgrind: memcheck found errors"; exit 1; fi
echo "valgrind: $(ls "$tmp/logs" | wc -l) processes checked:" \
     "no invalid access, no uninitialised value, no leak"
