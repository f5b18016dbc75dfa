#!/usr/bin/env bash
# Trace size and added time on a real program: cc1plus compiling one of the project's own
# sources (the compiler proper, run directly with the arguments g++ gives it, so that both
# tools trace exactly one process), plain, under heaptrack, under `rtrace record -e memory`
# (compact, zstd: the default) and `rtrace record -e memory --no-compress`, interleaved; prints
# median wall times of RUNS rounds, each tool's added time, and the trace sizes of the last
# round (heaptrack's file is zstd-compressed).
#
#   bench/run-compile.sh [BUILD_DIR] [SOURCE] [RUNS]
#   BEFORE_LIBDIR=DIR bench/run-compile.sh ...   also `rtrace record` with the tracer libraries of
#                                                DIR (another build: a before/after comparison)
set -euo pipefail
build=${1:-build}
source=${2:-src/formats/compact/compact_writer.cpp}
runs=${3:-3}
rtrace=$build/bin/rtrace
[[ -x $rtrace ]] || { echo "missing $rtrace (build the target rtrace)" >&2; exit 1; }
command -v heaptrack > /dev/null || { echo "heaptrack is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-compile.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The cc1plus command line g++ would run (-### prints it quoted, one line), writing into $work.
compile=(g++ -std=c++20 -O2 -g -I src -I "$build/generated" -c "$source" -o "$work/out.o")
line=$("${compile[@]}" -### 2>&1 | grep '/cc1plus"\? ' | head -1)
[[ -n $line ]] || { echo "no cc1plus line in g++ -###" >&2; exit 1; }
eval "cc1plus=($line)"
# Its assembler output goes to a temporary file of gcc's: ours instead.
for i in "${!cc1plus[@]}"; do
  if [[ ${cc1plus[$i]} == -o ]]; then cc1plus[i + 1]=$work/out.s; fi
done

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

for _ in $(seq "$runs"); do
  timed plain "${cc1plus[@]}"
  timed heaptrack heaptrack -o "$work/out-heaptrack/heaptrack" "${cc1plus[@]}"
  timed zstd "$rtrace" record -q -s -e memory -o "$work/out-zstd" -x "${cc1plus[@]}"
  timed plaintrace "$rtrace" record -q -s -e memory --no-compress -o "$work/out-plaintrace" \
    -x "${cc1plus[@]}"
  if [[ -n ${BEFORE_LIBDIR:-} ]]; then
    timed before env RTRACE_LIBDIR="$BEFORE_LIBDIR" "$rtrace" record -q -s -e memory \
      -o "$work/out-before" -x "${cc1plus[@]}"
  fi
done
calls=$("$rtrace" process -i "$work"/out-zstd/*.rtrace 2> /dev/null | grep -c '^[0-9]*\. ' || true)
p=$(median < "$work/plain.times")
h=$(median < "$work/heaptrack.times")
z=$(median < "$work/zstd.times")
u=$(median < "$work/plaintrace.times")
echo "cc1plus -O2 on $source ($calls calls traced by rtrace), median of $runs interleaved" \
     "rounds, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%F)"
echo
echo "| | plain | heaptrack | rtrace (zstd) | rtrace --no-compress |"
echo "|---|---|---|---|---|"
awk -v p="$p" -v h="$h" -v z="$z" -v u="$u" 'BEGIN {
  printf "| wall time | %.2f s | %.2f s | %.2f s | %.2f s |\n", p, h, z, u
  printf "| added | | +%.2f s | +%.2f s (%.0f %% of heaptrack'"'"'s) | +%.2f s (%.0f %%) |\n",
         h - p, z - p, 100 * (z - p) / (h - p), u - p, 100 * (u - p) / (h - p)
}'
pc=$(median < "$work/plain.cpu")
hc=$(median < "$work/heaptrack.cpu")
zc=$(median < "$work/zstd.cpu")
uc=$(median < "$work/plaintrace.cpu")
awk -v p="$pc" -v h="$hc" -v z="$zc" -v u="$uc" 'BEGIN {
  printf "| CPU time (user + sys, all processes) | %.2f s | %.2f s | %.2f s | %.2f s |\n", p, h, z, u
  printf "| added CPU | | +%.2f s | +%.2f s (%.0f %% of heaptrack'"'"'s) | +%.2f s (%.0f %%) |\n",
         h - p, z - p, 100 * (z - p) / (h - p), u - p, 100 * (u - p) / (h - p)
}'
echo "| trace size | | $(size_mb heaptrack 2) MB | $(size_mb zstd 2) MB | $(size_mb plaintrace 2) MB |"
if [[ -n ${BEFORE_LIBDIR:-} ]]; then
  b=$(median < "$work/before.times")
  bc=$(median < "$work/before.cpu")
  awk -v p="$p" -v b="$b" -v pc="$pc" -v bc="$bc" -v s="$(size_mb before 2)" 'BEGIN {
    printf "\nrtrace with the tracer of BEFORE_LIBDIR: %.2f s wall (+%.2f s), %.2f s CPU (+%.2f s), %s MB\n",
           b, b - p, bc, bc - pc, s
  }'
fi
