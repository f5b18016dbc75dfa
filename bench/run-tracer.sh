#!/usr/bin/env bash
# Tracer benchmark: the allocation-churn program (bench/churn) run plain, under heaptrack and
# under `rtrace record -e memory`, side by side, for each variant; prints each tool's slowdown
# against the plain run. Copy the table into bench/RESULTS.md with the command line.
#
#   bench/run-tracer.sh [BUILD_DIR] [ITERATIONS] [RUNS]
#
# ITERATIONS is the number of malloc+free pairs per run (default 1,000,000, the size of the
# original's reference figure), shared out between the threads of a variant. Variants: 1 and 4
# threads, recorded backtrace depth 5, 10 (the default and the reference) and 20. The churn's call
# chains are 12-15 frames deep, so depth 20 takes whole stacks. heaptrack always takes whole
# stacks: its figures do not depend on the depth. Wall times are medians of RUNS runs (default 3),
# measured around the whole process (start-up, tracing, and writing the trace to disk).
set -euo pipefail
build=${1:-build}
iterations=${2:-1000000}
runs=${3:-3}
bin=$build/bin
churn=$bin/rtrace-churn
for tool in "$churn" "$bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build the targets rtrace-churn and rtrace)" >&2; exit 1; }
done
command -v heaptrack > /dev/null || { echo "heaptrack is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Median wall seconds of RUNS runs of the command; each run starts with an empty output directory.
wall() {
  local times=()
  for _ in $(seq "$runs"); do
    rm -rf "$work/out" && mkdir "$work/out"
    local start=$EPOCHREALTIME
    "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
    local end=$EPOCHREALTIME
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')")
  done
  printf '%s\n' "${times[@]}" | median
}

echo "Tracer overhead on bench/churn ($iterations malloc+free pairs per run, median of $runs runs," \
     "$(nproc) cores, $(date -u +%F))"
echo
echo "| threads | depth | plain | heaptrack | rtrace record | heaptrack slowdown | rtrace slowdown | rtrace trace size |"
echo "|---|---|---|---|---|---|---|---|"
for threads in 1 4; do
  per_thread=$((iterations / threads))
  heaptrack_time=""
  plain=$(wall "$churn" "$per_thread" "$threads")
  for depth in 5 10 20; do
    # heaptrack does not take a depth: measure it once per thread count.
    if [[ -z $heaptrack_time ]]; then
      heaptrack_time=$(wall heaptrack -o "$work/out/heaptrack" "$churn" "$per_thread" "$threads")
    fi
    rtrace_time=$(wall "$bin/rtrace" record -q -s -e memory -b "$depth" -o "$work/out" \
                    -x "$churn" "$per_thread" "$threads")
    size=$(du -b "$work/out" | awk '{print $1}')
    awk -v th="$threads" -v d="$depth" -v p="$plain" -v h="$heaptrack_time" -v r="$rtrace_time" \
        -v s="$size" 'BEGIN {
      printf "| %d | %d | %.3f s | %.3f s | %.3f s | %.1fx (+%.2f s) | %.1fx (+%.2f s) | %.0f MB |\n",
             th, d, p, h, r, h / p, h - p, r / p, r - p, s / 1e6
    }'
  done
done
