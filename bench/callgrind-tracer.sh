#!/usr/bin/env bash
# Instructions the tracer adds per traced call inside the program's own threads, counted by
# valgrind's callgrind (exact and repeatable however loaded the machine is): bench/churn's
# rtrace-churn plain and traced in managed mode (what `rtrace record -m -s -e memory -b DEPTH`
# sets up), counting only inside the churn loop (--toggle-collect=run), so that start-up and the
# tracer's own control thread (draining, writing the file) are left out.
#
#   bench/callgrind-tracer.sh [BUILD_DIR] [ITERATIONS] [THREADS] [DEPTH] [LIB_DIR]
#
# ITERATIONS is per thread (each iteration a malloc and a free). LIB_DIR holds
# librtrace-main.so and librtrace-memory.so (default BUILD_DIR/lib): point it at another build's
# libraries to compare. (heaptrack cannot be counted this way: under valgrind its preloaded
# library records nothing.) Extra settings pass through the environment, e.g.
# RTRACE_UNWINDER=libunwind (every backtrace libunwind's) or EXTRA_OPTIONS=free-backtraces=1.
# MODULE=file counts the file module on bench/churn's rtrace-fd-churn instead (open + close of
# /dev/null per iteration, one thread, counted inside its depth() chain).
set -euo pipefail
build=${1:-build}
iterations=${2:-20000}
threads=${3:-1}
depth=${4:-10}
lib=${5:-$build/lib}
module=${MODULE:-memory}
case $module in
  memory) churn=$build/bin/rtrace-churn collect=run ;;
  file) churn=$build/bin/rtrace-fd-churn collect=depth threads=1 ;;
  *) echo "MODULE is memory or file" >&2; exit 1 ;;
esac
[[ -x $churn ]] || { echo "missing $churn (build the target $(basename "$churn"))" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Instructions executed inside $collect (all churn threads) by the given command.
instructions() {
  valgrind --tool=callgrind --toggle-collect="$collect" --callgrind-out-file="$work/out" "$@" \
    > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  grep -o 'refs: *[0-9,]*' "$work/err" | tr -d ', refs:'
}

plain=$(instructions "$churn" "$iterations" "$threads")
mkdir "$work/trace"
options="start=1,depth=$depth,managed=$work/trace${EXTRA_OPTIONS:+,$EXTRA_OPTIONS}"
traced=$(LD_PRELOAD="$lib/librtrace-main.so:$lib/librtrace-$module.so" RTRACE_OPTIONS="$options" \
           instructions "$churn" "$iterations" "$threads")
calls=$((2 * iterations * threads))
awk -v p="$plain" -v t="$traced" -v c="$calls" -v th="$threads" -v d="$depth" -v m="$module" \
    -v u="${RTRACE_UNWINDER:-default}" -v l="$lib" -v x="${EXTRA_OPTIONS:-}" 'BEGIN {
  printf "module=%s threads=%d depth=%d unwinder=%s libs=%s options=%s calls=%d plain=%d traced=%d added_per_call=%.0f\n",
         m, th, d, u, l, x, c, p, t, (t - p) / c }'
