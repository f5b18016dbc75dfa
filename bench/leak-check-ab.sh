#!/usr/bin/env bash
# The tracer's cost on the churn without and with `--leak-check`, against the tracer before the
# leak check existed: ROUNDS interleaved rounds, each running rtrace-churn plain, then recorded by
# `rtrace record -q -s -e memory` (the compact format, zstd, depth 64: the default) with the
# tracer libraries of BEFORE_LIBDIR (a build of the commit before the leak check), with today's
# libraries, and with today's and `--leak-check`. Prints, per command, the medians of the wall
# and CPU seconds (user + system of all its processes) and the time each adds to the plain run,
# with the ratio of today's to before's. Run it at normal priority on a quiet machine.
#
#   bench/leak-check-ab.sh BUILD_DIR BEFORE_LIBDIR [ITERATIONS] [THREADS] [ROUNDS]
set -euo pipefail
build=${1:?build directory}
before=${2:?library directory of the tracer before the leak check}
iterations=${3:-1000000}
threads=${4:-1}
rounds=${5:-7}
bin=$build/bin
for tool in "$bin/rtrace-churn" "$bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn, rtrace)" >&2; exit 1; }
done
for module in main memory; do
  [[ -f $before/librtrace-$module.so ]] || { echo "missing $before/librtrace-$module.so" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-leak-check-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

per_thread=$((iterations / threads))
churn=("$bin/rtrace-churn" "$per_thread" "$threads")
for _ in $(seq "$rounds"); do
  timed plain "${churn[@]}"
  timed before env RTRACE_LIBDIR="$before" "$bin/rtrace" record -q -s -e memory \
    -o "$work/out-before" -x "${churn[@]}"
  timed today "$bin/rtrace" record -q -s -e memory -o "$work/out-today" -x "${churn[@]}"
  timed checked "$bin/rtrace" record -q -s -e memory --leak-check -o "$work/out-checked" \
    -x "${churn[@]}"
done

echo "rtrace-churn $per_thread x $threads thread(s), $rounds interleaved rounds, $(nproc) cores," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%F)"
echo
echo "| command | wall (median) | added wall | CPU (median) | added CPU |"
echo "|---|---|---|---|---|"
plain_wall=$(median < "$work/plain.times")
plain_cpu=$(median < "$work/plain.cpu")
for name in plain before today checked; do
  awk -v n="$name" -v w="$(median < "$work/$name.times")" -v c="$(median < "$work/$name.cpu")" \
      -v pw="$plain_wall" -v pc="$plain_cpu" 'BEGIN {
    label["plain"] = "rtrace-churn alone"
    label["before"] = "record, the tracer before the leak check"
    label["today"] = "record, today, without --leak-check"
    label["checked"] = "record, today, --leak-check"
    printf "| %s | %.3f s | +%.3f s | %.3f s | +%.3f s |\n", label[n], w, w - pw, c, c - pc
  }'
done
echo
awk -v pw="$plain_wall" -v pc="$plain_cpu" \
    -v bw="$(median < "$work/before.times")" -v bc="$(median < "$work/before.cpu")" \
    -v tw="$(median < "$work/today.times")" -v tc="$(median < "$work/today.cpu")" \
    -v cw="$(median < "$work/checked.times")" -v cc="$(median < "$work/checked.cpu")" 'BEGIN {
  printf "today / before: wall %.3f, CPU %.3f; --leak-check / today: wall %.3f, CPU %.3f\n",
         tw / bw, tc / bc, cw / tw, cc / tc
}'
