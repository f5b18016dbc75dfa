#!/usr/bin/env bash
# StackTrack benchmark: `rtrace stacktrack expand` on a generated raw event file (4 processes,
# 8 threads each, 500 checkpoints, mostly HIT entries; bench/stacktrack/generate_events.cpp).
#
#   bench/stacktrack/run.sh [BUILD_DIR] [ENTRIES] [RUNS]
#
# Prints per case: median wall time, median user+system CPU time, median peak RSS, and entries per
# second of wall time (the command is single-threaded: one core). On a shared machine the CPU time
# is the steadier figure.
set -euo pipefail
build=${1:-build}
entries=${2:-5000000}
runs=${3:-7}
bin=$build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin/rtrace-stacktrack-gen" --entries "$entries" -o "$work/events.raw"
"$bin/rtrace-stacktrack-gen" --entries "$entries" --big-endian -o "$work/events-be.raw"
count=$(( $(stat -c %s "$work/events.raw") / 24 ))

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# measure LABEL OUTPUT COMMAND...: runs the command RUNS times, its output to OUTPUT.
measure() {
  local label=$1 output=$2; shift 2
  local times=() cpus=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$output"
    read -r t u s m < "$work/time"
    times+=("$t"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')"); rss+=("$m")
  done
  local t c m
  t=$(printf '%s\n' "${times[@]}" | median)
  c=$(printf '%s\n' "${cpus[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  awk -v l="$label" -v t="$t" -v c="$c" -v m="$m" -v n="$count" 'BEGIN {
    printf "%-34s %5.2f s wall %5.2f s cpu %5.1f MB RSS %5.2f M entries/s\n", l, t, c, m / 1024, n / 1e6 / (t > 0 ? t : 0.01)
  }'
}

echo "rtrace stacktrack expand, $count entries ($(stat -c %s "$work/events.raw") bytes), median of $runs runs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u '+%F %H:%M') UTC)"
measure "expand > /dev/null"             /dev/null "$bin/rtrace" stacktrack expand "$work/events.raw"
measure "expand > file"                  "$work/out.xml" "$bin/rtrace" stacktrack expand "$work/events.raw"
measure "expand (big-endian) > /dev/null" /dev/null "$bin/rtrace" stacktrack expand "$work/events-be.raw"
measure "expand --raw-times > /dev/null" /dev/null "$bin/rtrace" stacktrack expand --raw-times "$work/events.raw"
echo "output: $(stat -c %s "$work/out.xml") bytes"
