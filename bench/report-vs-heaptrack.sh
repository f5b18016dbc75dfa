#!/usr/bin/env bash
# `rtrace report` (text and --html) side by side with heaptrack_print, on the same run of a
# program with many distinct stacks recorded by both (rtrace-stacks-churn: 2^18 = 262,144
# distinct call paths, 2 M calls; rtrace records 64 frames), and `rtrace report` alone on a
# generated 2 M-call trace whose first million allocations each have a stack of their own
# (rtrace-gen-trace --every-stack). Interleaved rounds, the order turning; medians of the wall
# seconds, the CPU seconds (user + system) and the peak resident memory (/usr/bin/time's %M).
#
# Usage: bench/report-vs-heaptrack.sh [BUILD_DIR=build] [ROUNDS=5]
set -euo pipefail
build=${1:-build}
rounds=${2:-5}
bin=$build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench-report.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

command -v heaptrack > /dev/null || { echo "heaptrack is not installed" >&2; exit 1; }

"$bin/rtrace" record -q -b 64 -o "$work/stacks.rtrace" -- "$bin/rtrace-stacks-churn" > /dev/null
heaptrack -o "$work/stacks.heaptrack" "$bin/rtrace-stacks-churn" > /dev/null
"$bin/rtrace-gen-trace" -n 2000000 -d 10 -k 1000000 --every-stack -o "$work/gen1m.trace"

# Runs COMMAND... once; appends "wall cpu max_rss_kb" to $work/NAME.runs.
measure() {
  local name=$1
  shift
  /usr/bin/time -o "$work/time" -f '%e %U %S %M' "$@" > "$work/out" 2> "$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4}' "$work/time" >> "$work/$name.runs"
}

run_case() {
  case $1 in
    heaptrack_print) measure "$1" heaptrack_print "$work/stacks.heaptrack.zst" ;;
    report) measure "$1" "$bin/rtrace" report -q "$work/stacks.rtrace" ;;
    html) measure "$1" "$bin/rtrace" report -q --html "$work/stacks.html" "$work/stacks.rtrace" ;;
    gen1m) measure "$1" "$bin/rtrace" report -q "$work/gen1m.trace" ;;
  esac
}

cases=(heaptrack_print report html gen1m)
for round in $(seq "$rounds"); do
  for i in "${!cases[@]}"; do
    run_case "${cases[(i + round) % ${#cases[@]}]}"
  done
done

column_median() { awk -v c="$2" '{print $c}' "$work/$1.runs" | median; }
echo "$rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "| command | wall s | CPU s | peak RSS MB |"
echo "|---|---|---|---|"
for name in "${cases[@]}"; do
  printf '| %s | %s | %s | %s |\n' "$name" "$(column_median "$name" 1)" \
    "$(column_median "$name" 2)" \
    "$(column_median "$name" 3 | awk '{printf "%.0f", $1 / 1024}')"
done
echo "page: $(stat -c %s "$work/stacks.html") bytes"
for name in report html; do
  awk -v n="$name" 'FNR == NR {hw[FNR] = $1; hc[FNR] = $2; hm[FNR] = $3; next}
    {printf "%s/heaptrack_print round %d: wall %.2f, CPU %.2f, memory %.2f\n", n, FNR,
     $1 / hw[FNR], $2 / hc[FNR], $3 / hm[FNR]}' \
    "$work/heaptrack_print.runs" "$work/$name.runs"
done
