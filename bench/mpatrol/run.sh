#!/usr/bin/env bash
# rtrace mptrace throughput and memory on a generated 100 MB mpatrol tracing file.
#
#   bench/mpatrol/run.sh [BUILD_DIR] [MEGABYTES] [RUNS]
#
# Prints, for each command, the medians of RUNS runs of the wall time, the CPU time (user + sys)
# and the peak RSS, and the input MB/s for both times. On a shared machine the CPU time is the
# figure that says what one core does; the wall time also counts waiting for the CPU.
set -euo pipefail
build=${1:-build}
megabytes=${2:-100}
runs=${3:-5}
bin=$build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-mpatrol-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin/rtrace-gen-mpatrol" --megabytes "$megabytes" -o "$work/big.trace"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

measure() {
  local label=$1 out=$2; shift 2
  local times=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$out" 2>/dev/null
    read -r t u s m < "$work/time"
    times+=("$t"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')"); rss+=("$m")
  done
  local t c m size
  t=$(printf '%s\n' "${times[@]}" | median)
  c=$(printf '%s\n' "${cpus[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  size=$(stat -c %s "$work/big.trace")
  awk -v l="$label" -v t="$t" -v c="$c" -v m="$m" -v s="$size" 'BEGIN {
    printf "%-40s wall %5.2f s (%5.0f MB/s)  cpu %5.2f s (%5.0f MB/s)  %6.1f MB RSS\n", l, t, s / 1e6 / (t > 0 ? t : 0.01), c, s / 1e6 / (c > 0 ? c : 0.01), m / 1024
  }'
}

echo "rtrace mptrace, $(stat -c %s "$work/big.trace") byte trace, median of $runs runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u '+%F %H:%M') UTC)"
measure "mptrace (statistics)"                /dev/null "$bin/rtrace" mptrace "$work/big.trace"
measure "mptrace --verbose > /dev/null"        /dev/null "$bin/rtrace" mptrace --verbose "$work/big.trace"
measure "mptrace --verbose > file"             "$work/out" "$bin/rtrace" mptrace --verbose "$work/big.trace"
measure "mptrace --verbose --source > /dev/null" /dev/null "$bin/rtrace" mptrace --verbose --source "$work/big.trace"
echo "verbose output: $(stat -c %s "$work/out") bytes"
