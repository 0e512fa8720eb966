# generated from chapters/25-hardening.nw; edit the book, not this file
#!/usr/bin/env bash
# make fuzz: run the libFuzzer targets that the Makefile has built.
# usage: tools/fuzz.sh BUILD_DIR SECONDS MSAN_SECONDS "TARGETS" "MSAN_TARGETS"
set -euo pipefail
build=$(realpath "$1"); seconds=$2; msan_seconds=$3; targets=$4; msan_targets=$5
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=512
export MSAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=512
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p "$build/fuzz/artifacts"; : > "$build/fuzz/summary.txt"
printf 'leak:libomp.so\n' > "$build/fuzz/lsan.supp"          # the OpenMP runtime's own blocks
export LSAN_OPTIONS=suppressions=$build/fuzz/lsan.supp
job_dir=$build/fuzz/jobs; rm -rf "$job_dir"; mkdir -p "$job_dir"
source "$(dirname "$0")/jobs.sh"
target() {   # target KIND TIME NAME
    local kind=$1 time=$2 t=$3 runs
    mkdir -p "$build/fuzz/corpus/$t"
    "$build/$kind/fuzz-$t" -max_total_time="$time" -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build/fuzz/artifacts/$t-" \
        "$build/fuzz/corpus/$t" "$PWD/tests/fuzz/corpus/$t" > "$build/$kind/$t.log" 2>&1 || {
        tail -n 40 "$build/$kind/$t.log"
        echo "fuzz: $t found a problem; the input is in $build/fuzz/artifacts/"; exit 1; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$kind/$t.log")
    echo "fuzz: $kind/$t: $runs executions in $time s, corpus of" \
         "$(ls "$build/fuzz/corpus/$t" | wc -l) inputs, no finding" >> "$build/fuzz/summary.txt"
}
for run in "fuzz:$seconds:$targets" "fuzz-msan:$msan_seconds:$msan_targets"; do
    IFS=: read -r kind time names <<< "$run"
    for t in $names; do
        job "$kind-$t" target "$kind" "$time" "$t"
    done
done
jobs_done
cat "$build/fuzz/summary.txt"
