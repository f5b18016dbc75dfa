#!/usr/bin/env bash
# Tracer benchmark: the allocation churns of bench/churn run plain, under heaptrack, under
# `rtrace record -e memory` (the compact format compressed with zstd, the default), under
# `rtrace record -e memory --no-compress` and under `rtrace record -e memory --format sp-rtrace`
# (the original's binary protocol), side by side; prints each tool's added time, rtrace's as a
# share of heaptrack's, and the trace sizes. Copy the table into bench/RESULTS.md with the
# command line.
#
#   bench/run-tracer.sh [BUILD_DIR] [ITERATIONS] [RUNS]
#   DEPTHS="10 64" THREADS="1 4 8" PROGRAMS=churn bench/run-tracer.sh ...
#   BEFORE_LIBDIR=DIR bench/run-tracer.sh ...   also `rtrace record` (compact, the default) with
#                                               the tracer libraries of DIR (another build: a
#                                               before/after comparison in the same rounds)
#
# PROGRAMS (default "churn stacks"): `churn` is rtrace-churn (bench/churn/churn.c: a few hundred
# distinct stacks, call chains 17-20 frames deep), run with each of THREADS (default 1 and 4);
# `stacks` is rtrace-stacks-churn (bench/churn/stacks_churn.c: 262,144 distinct stacks 22 frames
# deep, as a large program has), run with each of STACKS_THREADS (default 1).
# ITERATIONS is the number of malloc+free pairs per run (default 1,000,000, the size of the
# original's reference figure), shared out between the threads of a variant. Each variant is
# run at each of DEPTHS, the recorded backtrace depths of the compact format (default 64,
# `rtrace record`'s default); `--format sp-rtrace` is run at its own default depth, 10, whatever
# DEPTHS says (at 64 its 2 M-call trace is about a gigabyte). heaptrack always
# takes whole stacks: its figures do not depend on the depth. The five commands run interleaved
# (plain, heaptrack, compact, compact uncompressed, sp-rtrace, then again), so that a change of
# the machine's load hits them alike; wall times are medians of RUNS rounds (default 5),
# measured around the whole process (start-up, tracing, and writing the trace to disk). Sizes:
# the trace files of the last round (heaptrack's is zstd-compressed).
set -euo pipefail
build=${1:-build}
iterations=${2:-1000000}
runs=${3:-5}
depths=${DEPTHS:-64}
programs=${PROGRAMS:-churn stacks}
bin=$build/bin
for tool in "$bin/rtrace-churn" "$bin/rtrace-stacks-churn" "$bin/rtrace"; do
  [[ -x $tool ]] || {
    echo "missing $tool (build the targets rtrace-churn, rtrace-stacks-churn and rtrace)" >&2
    exit 1
  }
done
command -v heaptrack > /dev/null || { echo "heaptrack is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

echo "Tracer overhead on bench/churn ($programs; $iterations malloc+free pairs per run, median of $runs" \
     "interleaved rounds, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the" \
     "start, $(date -u +%F))"
echo
echo "| program | threads | depth | plain | heaptrack | rtrace compact | compact --no-compress | rtrace sp-rtrace | added: heaptrack | compact (of heaptrack's) | --no-compress (of heaptrack's) | sp-rtrace (of heaptrack's) | sizes: heaptrack (zstd) | compact | --no-compress | sp-rtrace |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
cpu_lines=()
variants=()
for program in $programs; do
  case $program in
    churn) for threads in ${THREADS:-1 4}; do variants+=("churn $threads"); done ;;
    stacks) for threads in ${STACKS_THREADS:-1}; do variants+=("stacks $threads"); done ;;
    *) echo "unknown program '$program' in PROGRAMS (churn, stacks)" >&2; exit 1 ;;
  esac
done
for variant in "${variants[@]}"; do
  read -r program threads <<< "$variant"
  churn=$bin/rtrace-churn
  [[ $program == stacks ]] && churn=$bin/rtrace-stacks-churn
  per_thread=$((iterations / threads))
  for depth in $depths; do
    rm -f "$work"/*.times "$work"/*.cpu  # each variant's own rounds only
    for _ in $(seq "$runs"); do
      timed plain "$churn" "$per_thread" "$threads"
      timed heaptrack heaptrack -o "$work/out-heaptrack/heaptrack" "$churn" "$per_thread" "$threads"
      timed compact "$bin/rtrace" record -q -s -e memory -b "$depth" -o "$work/out-compact" \
        -x "$churn" "$per_thread" "$threads"
      timed uncompressed "$bin/rtrace" record -q -s -e memory -b "$depth" --no-compress \
        -o "$work/out-uncompressed" -x "$churn" "$per_thread" "$threads"
      timed sprtrace "$bin/rtrace" record -q -s -e memory --format sp-rtrace \
        -o "$work/out-sprtrace" -x "$churn" "$per_thread" "$threads"
      if [[ -n ${BEFORE_LIBDIR:-} ]]; then
        timed before env RTRACE_LIBDIR="$BEFORE_LIBDIR" "$bin/rtrace" record -q -s -e memory \
          -b "$depth" -o "$work/out-before" -x "$churn" "$per_thread" "$threads"
      fi
    done
    p=$(median < "$work/plain.times")
    h=$(median < "$work/heaptrack.times")
    c=$(median < "$work/compact.times")
    u=$(median < "$work/uncompressed.times")
    s=$(median < "$work/sprtrace.times")
    awk -v pr="$program" -v th="$threads" -v d="$depth" -v p="$p" -v h="$h" -v c="$c" -v u="$u" -v s="$s" \
        -v hs="$(size_mb heaptrack)" -v cs="$(size_mb compact)" -v us="$(size_mb uncompressed)" \
        -v ss="$(size_mb sprtrace)" 'BEGIN {
      printf "| %s | %d | %d | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | +%.2f s | +%.2f s (%.0f %%) | +%.2f s (%.0f %%) | +%.2f s (%.0f %%) | %s MB | %s MB | %s MB | %s MB |\n",
             pr, th, d, p, h, c, u, s, h - p, c - p, 100 * (c - p) / (h - p), u - p,
             100 * (u - p) / (h - p), s - p, 100 * (s - p) / (h - p), hs, cs, us, ss
    }'
    # CPU time (user + system of every process of the command), which a loaded machine
    # disturbs less than wall time; printed after the table.
    cpu_line=$(awk -v pr="$program" -v th="$threads" -v d="$depth" -v p="$(median < "$work/plain.cpu")" \
        -v h="$(median < "$work/heaptrack.cpu")" -v c="$(median < "$work/compact.cpu")" \
        -v u="$(median < "$work/uncompressed.cpu")" -v s="$(median < "$work/sprtrace.cpu")" 'BEGIN {
      printf "| %s | %d | %d | %.3f s | %.3f s | %.3f s | %.3f s | %.3f s | +%.3f s | %.0f %% | %.0f %% | %.0f %% |",
             pr, th, d, p, h, c, u, s, h - p, 100 * (c - p) / (h - p), 100 * (u - p) / (h - p),
             100 * (s - p) / (h - p)
    }')
    if [[ -n ${BEFORE_LIBDIR:-} ]]; then
      cpu_line+=$(awk -v p="$(median < "$work/plain.cpu")" -v h="$(median < "$work/heaptrack.cpu")" \
          -v b="$(median < "$work/before.cpu")" -v pw="$p" -v hw="$h" \
          -v bw="$(median < "$work/before.times")" -v bs="$(size_mb before)" 'BEGIN {
        printf " before: %.3f s CPU (%.0f %%), %.3f s wall (+%.2f s, %.0f %%), %s MB |",
               b, 100 * (b - p) / (h - p), bw, bw - pw, 100 * (bw - pw) / (hw - pw), bs
      }')
    fi
    cpu_lines+=("$cpu_line")
  done
done
echo
echo "CPU time (user + sys of all the command's processes), medians; added CPU as a share of heaptrack's:"
echo
echo "| program | threads | depth | plain | heaptrack | compact | --no-compress | sp-rtrace | heaptrack adds | compact | --no-compress | sp-rtrace |${BEFORE_LIBDIR:+ BEFORE_LIBDIR (compact) |}"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|${BEFORE_LIBDIR:+---|}"
printf '%s\n' "${cpu_lines[@]}"
