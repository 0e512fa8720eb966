# generated from chapters/25-hardening.nw; edit the book, not this file
# Sourced by tools/valgrind.sh and tools/fuzz.sh, which set job_dir first.
# job NAME COMMAND...: COMMAND (often a function of the script) in the background,
# once fewer than $job_max are running, its output kept in $job_dir/NAME; it fails as
# the script would.  jobs_done: wait for every job, print the output of each that
# failed, in the order they were started, and fail if one did.
job_max=${JOBS:-2} job_names=() job_pids=()
job() {
    local name=$1
    shift
    while [[ $(jobs -pr | wc -l) -ge $job_max ]]; do sleep 0.2; done
    ("$@") > "$job_dir/$name" 2>&1 &
    job_names+=("$name") job_pids+=($!)
}
jobs_done() {
    local i failed=0
    for i in "${!job_pids[@]}"; do
        wait "${job_pids[i]}" || { cat "$job_dir/${job_names[i]}"; failed=1; }
    done
    job_names=() job_pids=()
    return $failed
}
