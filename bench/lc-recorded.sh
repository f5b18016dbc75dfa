#!/usr/bin/env bash
# `rtrace process -lc` on the trace the original's figure was measured on: a real recording, in
# the sp-rtrace binary protocol, of a 1 M malloc + 1 M free churn with 10-frame backtraces on the
# allocations (fixtures/sp-rtrace/MANIFEST.md: 168 MB, 2,000,365 calls, `sp-rtrace-postproc -lc`
# 0.72 s). The first build records rtrace-churn with `rtrace record --format sp-rtrace`
# ("recorded"); beside it run the synthetic trace of bench/process.sh (5000 stacks, about 20,000
# blocks leaked: a hundred times the original's -lc output, so a heavier leaks stage) and the
# same churn recorded in rtrace's own compact format ("compact", what `rtrace record` writes by
# default), with heaptrack's leak report (`heaptrack_print --print-leaks`) on heaptrack's trace
# of that churn as the reference for it, when heaptrack is installed. Every round times each
# build on each trace with `perf stat -r REPEATS` (its mean), builds in turn, so that a busy
# machine slows them alike; printed are the medians of the rounds' wall and CPU (task-clock).
#
#   bench/lc-recorded.sh BUILD [OTHER_BUILD...] [-- ROUNDS [REPEATS]]
set -euo pipefail
builds=()
while (($#)) && [[ $1 != -- ]]; do builds+=("$1"); shift; done
(($#)) && shift
rounds=${1:-5}
repeats=${2:-11}
((${#builds[@]})) || { echo "usage: $0 BUILD [OTHER_BUILD...] [-- ROUNDS [REPEATS]]" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf is needed (linux-perf)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-lc-recorded.XXXXXX")
trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/process-common.sh"
first=${builds[0]}
mkdir "$work/recorded"
"$first/bin/rtrace" record -q -s -e memory -b 10 --format sp-rtrace -o "$work/recorded" \
  -x "$first/bin/rtrace-churn" 1000000 1 > /dev/null
mv "$work"/recorded/*.rtrace "$work/recorded.raw"
"$first/bin/rtrace-gen-trace" --calls 2000000 --depth 10 --stacks 5000 -o "$work/synthetic.raw"
mkdir "$work/compact"
"$first/bin/rtrace" record -q -s -e memory -b 10 -o "$work/compact" \
  -x "$first/bin/rtrace-churn" 1000000 1 > /dev/null
mv "$work"/compact/*.rtrace "$work/compact.raw"
heaptrack=
if command -v heaptrack > /dev/null && command -v heaptrack_print > /dev/null; then
  heaptrack -o "$work/heaptrack" "$first/bin/rtrace-churn" 1000000 1 > /dev/null 2>&1
  heaptrack=$(ls "$work"/heaptrack.*)
fi
traces=(recorded synthetic compact)

# One perf stat series: appends "wall_s cpu_ms" to the file $1.
timed() {
  local log=$1
  shift
  perf stat -r "$repeats" -x, -e task-clock,duration_time -o "$work/perf" "$@" > /dev/null \
    2> "$work/stderr" || { cat "$work/stderr" >&2; exit 1; } # (older builds warn on RCMD/REND)
  awk -F, '$3 == "task-clock" {cpu = $1} $3 == "duration_time" {wall = $1 / 1e9}
           END {printf "%.4f %.1f\n", wall, cpu}' "$work/perf" >> "$log"
}

for _ in $(seq "$rounds"); do
  for trace in "${traces[@]}"; do
    for i in "${!builds[@]}"; do
      timed "$work/$trace.$i" "${builds[$i]}/bin/rtrace" process -lc -i "$work/$trace.raw" \
        -o "$work/$trace.$i.txt"
    done
  done
  if [[ -n $heaptrack ]]; then
    timed "$work/heaptrack" heaptrack_print --print-leaks 1 -f "$heaptrack"
  fi
done

column() { cut -d' ' -f"$2" "$1" | median; }
echo "rtrace process -lc, medians of $rounds rounds of perf stat -r $repeats, builds in turn;" \
     "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u '+%F %H:%M') UTC"
# row NAME LOG: a table row of the medians in LOG and the original's 0.72 s over the wall.
row() {
  awk -v b="$1" -v w="$(column "$2" 1)" -v c="$(column "$2" 2)" \
    'BEGIN {printf "| %s | %.3f s | %.0f ms | %.1fx |\n", b, w, c, 0.72 / w}'
}
for trace in "${traces[@]}"; do
  echo
  echo "$trace: $(stat -c %s "$work/$trace.raw") bytes," \
       "-lc output $(stat -c %s "$work/$trace.0.txt") bytes"
  echo "| build | wall | cpu (task-clock) | the original's 0.72 s / wall |"
  echo "|---|---|---|---|"
  for i in "${!builds[@]}"; do
    row "${builds[$i]}" "$work/$trace.$i"
  done
  if [[ $trace == compact && -n $heaptrack ]]; then
    row "heaptrack_print --print-leaks on heaptrack's trace ($(stat -c %s "$heaptrack") bytes)" \
      "$work/heaptrack"
  fi
done
