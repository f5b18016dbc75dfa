#!/usr/bin/env bash
# The leak check's cost (rtrace record --leak-check), two ways:
#  1. the writer's instructions per call on the malloc/free churn with and without the option
#     (bench/callgrind-writer.sh: exact however loaded the machine is; the program's threads run
#     the same code either way, the live blocks are kept by the writer);
#  2. the check itself: rtrace-live-heap leaving BLOCKS blocks at exit, recorded with and
#     without --leak-check in managed mode, interleaved; medians of RUNS rounds of the CPU time
#     (user + system) of the whole run, and of the wall time.
#
#   bench/leak-check.sh [BUILD_DIR] [BLOCKS] [RUNS]
set -euo pipefail
build=${1:-build}
blocks=${2:-1000000}
runs=${3:-5}
here=$(dirname "$0")
for tool in "$build/bin/rtrace-churn" "$build/bin/rtrace-live-heap" "$build/bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn, rtrace-live-heap, rtrace)" >&2; exit 1; }
done
"$here/callgrind-writer.sh" "$build" 200000 1 10
LEAK_CHECK=1 "$here/callgrind-writer.sh" "$build" 200000 1 10

work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-leak-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
run() {  # run NAME OPTIONS...: one recording; appends "cpu wall" to $work/NAME
  local name=$1
  shift
  rm -rf "$work/trace" && mkdir "$work/trace"
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f '%U %S' -o "$work/time" "$build/bin/rtrace" record -q -s -m -e memory "$@" \
    -o "$work/trace" -x "$build/bin/rtrace-live-heap" "$blocks" > /dev/null
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" '{ printf "%.3f %.3f\n", $1 + $2, e - s }' "$work/time" >> "$work/$name"
}
for ((i = 0; i < runs; ++i)); do
  run plain
  run checked --leak-check
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for name in plain checked; do
  printf '%s blocks=%d cpu_s=%s wall_s=%s\n' "$name" "$blocks" \
    "$(cut -d' ' -f1 "$work/$name" | median)" "$(cut -d' ' -f2 "$work/$name" | median)"
done
