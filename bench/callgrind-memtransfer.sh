#!/usr/bin/env bash
# Instructions the tracer adds per traced call, memtransfer against memory, counted by valgrind's
# callgrind (exact and repeatable however loaded the machine is): rtrace-churn (malloc + free)
# under the memory module, with and without free backtraces (free-backtraces=1, what -A sets),
# and rtrace-transfer-churn (memcpy + memset, the same call chains) under the memtransfer module,
# each also plain; managed mode, depth 10. Counts only inside the churn (run() of rtrace-churn,
# main() of rtrace-transfer-churn), so start-up and the tracer's control thread are left out.
#
#   bench/callgrind-memtransfer.sh [BUILD_DIR] [ITERATIONS]
set -euo pipefail
build=${1:-build}
iterations=${2:-20000}
lib=$build/lib
for tool in "$build/bin/rtrace-churn" "$build/bin/rtrace-transfer-churn"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn rtrace-transfer-churn)" >&2; exit 1; }
done
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT

# instructions COLLECT_FUNCTION MODULE|- OPTIONS COMMAND...: instructions inside the function.
instructions() {
  local collect=$1 module=$2 options=$3
  shift 3
  rm -rf "$work/trace" && mkdir "$work/trace"
  local preload=()
  if [[ $module != - ]]; then
    preload=(env "LD_PRELOAD=$lib/librtrace-main.so:$lib/librtrace-$module.so"
             "RTRACE_OPTIONS=start=1,depth=10,managed=$work/trace$options")
  fi
  "${preload[@]}" valgrind --tool=callgrind --toggle-collect="$collect" \
    --callgrind-out-file="$work/out" "$@" > /dev/null 2> "$work/err" ||
    { cat "$work/err" >&2; exit 1; }
  grep -o 'refs: *[0-9,]*' "$work/err" | tr -d ', refs:'
}

churn_plain=$(instructions run - "" "$build/bin/rtrace-churn" "$iterations" 1)
memory=$(instructions run memory "" "$build/bin/rtrace-churn" "$iterations" 1)
memory_all=$(instructions run memory ",free-backtraces=1" "$build/bin/rtrace-churn" "$iterations" 1)
transfer_plain=$(instructions main - "" "$build/bin/rtrace-transfer-churn" "$iterations")
memtransfer=$(instructions main memtransfer "" "$build/bin/rtrace-transfer-churn" "$iterations")

calls=$((2 * iterations))
awk -v cp="$churn_plain" -v m="$memory" -v ma="$memory_all" -v tp="$transfer_plain" \
    -v t="$memtransfer" -v c="$calls" 'BEGIN {
  printf "Instructions added per traced call (%d calls, depth 10):\n", c
  printf "  memory:      %.0f\n", (m - cp) / c
  printf "  memory -A:   %.0f\n", (ma - cp) / c
  printf "  memtransfer: %.0f (%.2fx memory, %.2fx memory -A)\n", (t - tp) / c,
         (t - tp) / (m - cp), (t - tp) / (ma - cp) }'
