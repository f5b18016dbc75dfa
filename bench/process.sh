#!/usr/bin/env bash
# Post-processor benchmark: rtrace process on a synthetic trace of the shape the original's
# figures were taken on (2 M calls, backtrace depth 10; ../shared/fixtures/sp-rtrace/MANIFEST.md).
#
#   bench/process.sh [BUILD_DIR] [CALLS] [RUNS]
#
# Prints one line per command: median wall time, median peak RSS, input size and MB/s.
set -euo pipefail
build=${1:-build}
calls=${2:-2000000}
runs=${3:-5}
bin=$build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/process-common.sh"
make_churn_trace "$build" "$calls" "$work"

measure() {
  local label=$1 input=$2; shift 2
  local times=() rss=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2>/dev/null
    read -r t m < "$work/time"
    times+=("$t"); rss+=("$m")
  done
  local t m size
  t=$(printf '%s\n' "${times[@]}" | median)
  m=$(printf '%s\n' "${rss[@]}" | median)
  size=$(stat -c %s "$input")
  awk -v l="$label" -v t="$t" -v m="$m" -v s="$size" 'BEGIN {
    printf "%-26s %7.2f s %8.1f MB RSS %8.1f MB in %8.0f MB/s\n", l, t, m / 1024, s / 1e6, s / 1e6 / (t > 0 ? t : 0.01)
  }'
}

echo "rtrace process, $calls calls, depth 10, median of $runs runs ($(nproc) cores, $(date -u +%F))"
measure "binary -> text"        "$work/churn.raw" "$bin/rtrace" process -i "$work/churn.raw"
measure "binary -> text (-o file)" "$work/churn.raw" "$bin/rtrace" process -i "$work/churn.raw" -o "$work/o.txt"
measure "text -> text"          "$work/churn.txt" "$bin/rtrace" process -i "$work/churn.txt"
measure "binary -> binary"      "$work/churn.raw" "$bin/rtrace" process --to binary -i "$work/churn.raw"
if "$bin/rtrace" process -lc -i "$work/churn.raw" > /dev/null 2>&1; then
  measure "binary -lc"          "$work/churn.raw" "$bin/rtrace" process -lc -i "$work/churn.raw"
  measure "text -lc"            "$work/churn.txt" "$bin/rtrace" process -lc -i "$work/churn.txt"
  measure "binary -c"           "$work/churn.raw" "$bin/rtrace" process -c -i "$work/churn.raw"
fi
