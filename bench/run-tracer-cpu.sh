#!/usr/bin/env bash
# What a tracer adds inline, per traced call, in the program's own threads: the CPU time of
# bench/churn's churning threads (cpu_ns_per_op, which the machine's load barely moves, unlike
# wall time), plain, under heaptrack and under `rtrace record -q -s -e memory -b DEPTH` with each
# library directory given, the runs interleaved (plain, heaptrack, rtrace A, rtrace B, plain,
# ...), medians of RUNS runs. Compare two builds of the tracer in one session:
#
#   bench/run-tracer-cpu.sh [BUILD_DIR] [ITERATIONS] [RUNS] [THREADS] [DEPTH] [LIB_DIR...]
#
# ITERATIONS is the number of malloc+free pairs per run, shared out between the THREADS.
# LIB_DIRs default to BUILD_DIR/lib (each is passed to rtrace as RTRACE_LIBDIR).
set -euo pipefail
build=${1:-build}
iterations=${2:-1000000}
runs=${3:-7}
threads=${4:-1}
depth=${5:-10}
shift $(($# < 5 ? $# : 5))
libs=("$@")
[[ ${#libs[@]} -gt 0 ]] || libs=("$build/lib")
bin=$build/bin
for tool in "$bin/rtrace-churn" "$bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build the targets rtrace-churn and rtrace)" >&2; exit 1; }
done
command -v heaptrack > /dev/null || { echo "heaptrack is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
per_thread=$((iterations / threads))

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

# The churn's cpu_ns_per_op in one run of the command.
cpu_per_op() {
  rm -rf "$work/out" && mkdir "$work/out"
  "$@" 2> "$work/err" | grep -o 'cpu_ns_per_op=[0-9.]*' | cut -d= -f2 ||
    { cat "$work/err" >&2; exit 1; }
}

declare -A samples
for _ in $(seq "$runs"); do
  samples[plain]+="$(cpu_per_op "$bin/rtrace-churn" "$per_thread" "$threads") "
  samples[heaptrack]+="$(cpu_per_op heaptrack -o "$work/out/heaptrack" "$bin/rtrace-churn" \
                           "$per_thread" "$threads") "
  for i in "${!libs[@]}"; do
    samples[rtrace$i]+="$(RTRACE_LIBDIR=${libs[$i]} cpu_per_op "$bin/rtrace" record -q -s -e memory \
                            -b "$depth" -o "$work/out" -x "$bin/rtrace-churn" "$per_thread" \
                            "$threads") "
  done
done
med() { tr ' ' '\n' <<< "${samples[$1]}" | grep . | median; }
plain=$(med plain)
heaptrack=$(med heaptrack)
echo "CPU time of the churning threads per call, $iterations malloc+free pairs per run, $threads" \
     "thread(s), depth $depth, median of $runs interleaved runs, $(nproc) cores," \
     "load $(cut -d' ' -f1 /proc/loadavg), $(date -u '+%F %H:%M') UTC"
echo
echo "| run | cpu per call | added per call | added against heaptrack's |"
echo "|---|---|---|---|"
awk -v p="$plain" 'BEGIN { printf "| plain | %.1f ns | | |\n", p }'
awk -v p="$plain" -v h="$heaptrack" 'BEGIN { printf "| heaptrack | %.1f ns | %.1f ns | 100 %% |\n", h, h - p }'
for i in "${!libs[@]}"; do
  awk -v p="$plain" -v h="$heaptrack" -v r="$(med "rtrace$i")" -v l="${libs[$i]}" 'BEGIN {
    printf "| rtrace record (%s) | %.1f ns | %.1f ns | %.0f %% |\n", l, r, r - p, 100 * (r - p) / (h - p) }'
done
