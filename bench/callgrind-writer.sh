#!/usr/bin/env bash
# Instructions the tracer's writer spends per traced call, counted by valgrind's callgrind (exact
# and repeatable however loaded the machine is): bench/churn's rtrace-churn traced in managed mode
# in the compact format, zstd-compressed (what `rtrace record -m -s -e memory -b DEPTH` writes by
# default; `--no-compress`: COMPRESS=0), counting only inside the merge of the rings into the
# output (--toggle-collect=merge_records: the transcoding into compact records, the stack,
# function and resource tables, zstd and the writes), whichever thread runs it. The program
# threads' own cost is bench/callgrind-tracer.sh's.
#
#   bench/callgrind-writer.sh [BUILD_DIR] [ITERATIONS] [THREADS] [DEPTH] [LIB_DIR]
#
# ITERATIONS is per thread (each iteration a malloc and a free). LIB_DIR holds
# librtrace-main.so and librtrace-memory.so (default BUILD_DIR/lib): point it at another build's
# libraries to compare. Prints the instructions per call and the trace's size. LEAK_CHECK=1 adds
# `leak-check=1` (rtrace record --leak-check: the writer keeps the live blocks).
set -euo pipefail
build=${1:-build}
iterations=${2:-200000}
threads=${3:-1}
depth=${4:-10}
lib=${5:-$build/lib}
churn=$build/bin/rtrace-churn
[[ -x $churn ]] || { echo "missing $churn (build the target rtrace-churn)" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-callgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir "$work/trace"
options="start=1,depth=$depth,compact=1,compress=${COMPRESS:-1},managed=$work/trace"
if [[ ${LEAK_CHECK:-0} == 1 ]]; then
  options+=",leak-check=1"
fi
LD_PRELOAD="$lib/librtrace-main.so:$lib/librtrace-memory.so" RTRACE_OPTIONS="$options" \
  valgrind --tool=callgrind --toggle-collect='rtrace::tracer::merge_records*' \
  --callgrind-out-file="$work/out" "$churn" "$iterations" "$threads" > /dev/null 2> "$work/err" ||
  { cat "$work/err" >&2; exit 1; }
written=$(grep -o 'refs: *[0-9,]*' "$work/err" | tr -d ', refs:')
size=$(du -cb "$work"/trace/*.rtrace | tail -1 | cut -f1)
calls=$((2 * iterations * threads))
awk -v w="$written" -v c="$calls" -v th="$threads" -v d="$depth" -v l="$lib" -v s="$size" \
    -v z="${COMPRESS:-1}" -v k="${LEAK_CHECK:-0}" 'BEGIN {
  printf "writer threads=%d depth=%d compress=%s leak_check=%s libs=%s calls=%d merge_instructions=%d per_call=%.0f trace_bytes=%d\n",
         th, d, z, k, l, c, w, w / c, s }'
