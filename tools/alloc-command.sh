# generated from chapters/25-hardening.nw; edit the book, not this file
#!/usr/bin/env bash
# usage: alloc-command.sh MHA WORK: every subcommand of MHA (a build linked with the
# failing allocator) on a small case, its allocations failed one at a time.
set -euo pipefail
mha=$(realpath "$1"); work=$2
rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
golden=$(realpath tests/golden)
cases=0 bad=0
mkdir -p "$work/in"
for c in self_attention block_plain; do
    mkdir "$work/in/$c"
    for f in "$golden/$c"/*.npy; do [[ ${f##*/} == expected* ]] || cp "$f" "$work/in/$c/"; done
done
head -c 4000 chapters/15-language-model.nw > "$work/in/train.txt"
head -c 1500 chapters/16-austen-model.nw > "$work/in/valid.txt"
head -c 300 chapters/16-austen-model.nw > "$work/in/short.txt"
LM_SMALL="--vocab 300 --layers 1 --heads 2 --dim 16 --context 16 --batch 2 --steps 2"
LM_SMALL="$LM_SMALL --eval-every 1 --lr 0.01"
"$mha" lm train --text "$work/in/train.txt" --valid "$work/in/valid.txt" --out "$work/in/model" \
       --state "$work/in/model.state" $LM_SMALL > /dev/null
sweep() {     # sweep NAME DIR ARGUMENTS...: DIR, where the command writes, must stay as it was
    local name=$1 dir=$2 before n status lines
    shift 2
    before=$(ls -A "$dir")
    for ((n = 1; ; n++)); do
        rm -f "$work/mark"
        status=0
        MHA_TEST_FAIL_ALLOC=$n MHA_TEST_FAIL_MARK="$work/mark" "$mha" "$@" > "$work/out" \
            2> "$work/err" || status=$?
        if [[ ! -e "$work/mark" ]]; then
            [[ $status -eq 0 ]] || { echo "alloc-command: $name fails with no failed allocation:"
                                     sed 's/^/  /' "$work/err" | head -n 5; bad=$((bad + 1)); }
            break
        fi
        lines=$(wc -l < "$work/err")
        if [[ $status -eq 0 || $lines -ne 1 || "$(ls -A "$dir")" != "$before" ]] ||
           ! grep -q '^mha: ' "$work/err"; then
            echo "alloc-command: $name, allocation $n failed: exit status $status," \
                 "$lines lines on standard error, in $dir: $(ls -A "$dir" | tr '\n' ' ')"
            sed 's/^/  /' "$work/err" | head -n 5
            bad=$((bad + 1))
            break
        fi
    done
    printf '%-14s %5d allocations failed in turn\n' "$name" $((n - 1))
    cases=$((cases + 1))
}
fresh() {     # fresh NAME CASE: a copy of a small case's directory, for one command to write in
    rm -rf "$work/$1" && cp -r "$work/in/$2" "$work/$1" && echo "$work/$1"
}
empty=$work/empty
mkdir -p "$empty"
T=$work/in/train.txt V=$work/in/valid.txt S=$work/in/short.txt M=$work/in/model
d=$(fresh forward self_attention); sweep forward "$d" forward "$d" --heads 2
d=$(fresh decode self_attention); sweep decode "$d" decode "$d" --heads 2
d=$(fresh backward self_attention); sweep backward "$d" backward "$d" --heads 2
d=$(fresh block block_plain); sweep block "$d" block "$d" --heads 2 --backward
mkdir "$work/train"
sweep train "$work/train" train --steps 2 --every 1 --batch 4 --vocab 8 --length 12 --dim 8 \
      --heads 2 --out "$work/train"
sweep demo "$empty" demo
mkdir "$work/tokenizer"
sweep "lm tokenizer" "$work/tokenizer" lm tokenizer --text "$T" --vocab 300 --out "$work/tokenizer/t"
sweep "lm encode" "$empty" lm encode "$M" --text "the cat sat"
sweep "lm decode" "$empty" lm decode "$M" 104 101 257
mkdir "$work/baselines"
sweep "lm baselines" "$work/baselines" lm baselines --train "$T" --valid "$V" --vocab 300 \
      --out "$work/baselines/b.tsv"
mkdir "$work/lm-train"
sweep "lm train" "$work/lm-train" lm train --text "$T" --valid "$V" --out "$work/lm-train/m" \
      --vocab 300 --layers 1 --heads 2 --dim 16 --context 16 --batch 2 --steps 2 --eval-every 2 \
      --lr 0.01
sweep "lm eval" "$empty" lm eval "$M" --text "$S"
sweep "lm generate" "$empty" lm generate "$M" --prompt "the" --tokens 4 --seed 1
d=$(fresh heads model); sweep "lm heads" "$d" lm heads "$d" --text "$S" --windows 1
d=$(fresh prune model); sweep "lm prune" "$d" lm prune "$d" --text "$S" --tokens 32
echo "alloc-command: $cases commands swept$([[ $bad -eq 0 ]] || echo "; $bad FAILED")"
[[ $bad -eq 0 ]]
