#!/usr/bin/env bash
# The memtransfer module against the memory module, two builds of the tracer libraries side by
# side: ROUNDS rounds, the order of the builds alternating, each round running the plain churns
# once and, per build, rtrace-churn under the memory module and rtrace-transfer-churn under the
# memtransfer module (managed mode, depth 10, as bench/callgrind-memtransfer.sh; no recorder, so
# that the two builds differ only in the preloaded libraries). Prints, per build, the medians of
# the program thread's CPU added per traced call and of the wall time added, the ratio of the
# medians (memtransfer / memory) and the median of the rounds' own ratios.
#
#   bench/memtransfer-ab.sh BUILD_DIR LIB_A LIB_B [ITERATIONS] [ROUNDS] [FORMAT]
#
# TRANSFER_SIZES=independent gives rtrace-transfer-churn's memsets sizes of their own (by default
# a memset has the size of the memcpy before it).
#
# FORMAT is the trace format the tracer writes: sp-rtrace (the default here: the original binary
# protocol, what the compatible sp-rtrace writes) or compact (what `rtrace record` writes by
# default, a zstd frame at level 1 as there). The tracer's work on the program thread is the same
# for both; the writer's is not (the binary protocol spells a transfer out as an allocation and a
# release with every frame, twice the bytes of the memory module's average call), and the writer
# runs beside the program on a machine of two cores.
#
# BUILD_DIR gives the churn programs; LIB_A and LIB_B are directories of the libraries
# (librtrace-main.so, librtrace-memory.so, librtrace-memtransfer.so), e.g. a copy of a build's
# lib directory made before a change.
set -euo pipefail
build=${1:?build directory}
lib_a=${2:?first library directory}
lib_b=${3:?second library directory}
iterations=${4:-1000000}
rounds=${5:-20}
format=${6:-sp-rtrace}
case $format in
  sp-rtrace) format_option= ;;
  compact) format_option=,compact=1,compress=1 ;;  # zstd level 1, as `rtrace record` writes it
  *) echo "unknown format $format (sp-rtrace or compact)" >&2; exit 1 ;;
esac
for tool in "$build/bin/rtrace-churn" "$build/bin/rtrace-transfer-churn"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn rtrace-transfer-churn)" >&2; exit 1; }
done
for lib in "$lib_a" "$lib_b"; do
  for module in main memory memtransfer; do
    [[ -f $lib/librtrace-$module.so ]] || { echo "missing $lib/librtrace-$module.so" >&2; exit 1; }
  done
done
transfer_sizes=${TRANSFER_SIZES:-same}
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-mt-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

# One traced run: LIB MODULE PROGRAM ARGS...
traced() {
  local lib=$1 module=$2
  shift 2
  rm -rf "$work/trace" && mkdir "$work/trace"
  churn_figures env "LD_PRELOAD=$lib/librtrace-main.so:$lib/librtrace-$module.so" \
    "RTRACE_OPTIONS=start=1,depth=10,managed=$work/trace$format_option" "$@"
}

: > "$work/rows"
for round in $(seq "$rounds"); do
  read -r churn_cpu churn_wall < <(churn_figures "$build/bin/rtrace-churn" "$iterations" 1)
  read -r transfer_cpu transfer_wall < <(
    churn_figures "$build/bin/rtrace-transfer-churn" "$iterations" "$transfer_sizes")
  if ((round % 2)); then order=("A $lib_a" "B $lib_b"); else order=("B $lib_b" "A $lib_a"); fi
  for entry in "${order[@]}"; do
    read -r name lib <<< "$entry"
    read -r memory_cpu memory_wall < <(traced "$lib" memory "$build/bin/rtrace-churn" "$iterations" 1)
    read -r mt_cpu mt_wall < <(
      traced "$lib" memtransfer "$build/bin/rtrace-transfer-churn" "$iterations" "$transfer_sizes")
    awk -v n="$name" -v r="$round" -v cc="$churn_cpu" -v cw="$churn_wall" -v tc="$transfer_cpu" \
        -v tw="$transfer_wall" -v mc="$memory_cpu" -v mw="$memory_wall" -v xc="$mt_cpu" \
        -v xw="$mt_wall" 'BEGIN {
      printf "%s %d %.2f %.2f %.2f %.2f\n", n, r, mc - cc, xc - tc, mw - cw, xw - tw }' >> "$work/rows"
  done
done

column_of() { awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$work/rows"; }
ratios_of() { awk -v n="$1" -v a="$2" -v b="$3" '$1 == n && $a > 0 {print $b / $a}' "$work/rows"; }

echo "Added per traced call, medians of $rounds rounds (builds alternating), $iterations iterations," \
     "depth 10, managed, $format format, transfer sizes $transfer_sizes; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M') UTC"
echo "A = $lib_a"
echo "B = $lib_b"
echo
echo "| build | memory cpu | memtransfer cpu | ratio of medians | median of ratios | memory wall | memtransfer wall | wall ratio |"
echo "|---|---|---|---|---|---|---|---|"
for name in A B; do
  memory_cpu=$(column_of "$name" 3 | median)
  mt_cpu=$(column_of "$name" 4 | median)
  memory_wall=$(column_of "$name" 5 | median)
  mt_wall=$(column_of "$name" 6 | median)
  ratio=$(ratios_of "$name" 3 4 | median)
  awk -v n="$name" -v mc="$memory_cpu" -v xc="$mt_cpu" -v mw="$memory_wall" -v xw="$mt_wall" \
      -v r="$ratio" 'BEGIN {
    printf "| %s | %.1f ns | %.1f ns | %.2f | %.2f | %.1f ns | %.1f ns | %.2f |\n",
           n, mc, xc, xc / mc, r, mw, xw, xw / mw }'
done
# Paired by round: B minus A.
paired() {
  awk -v c="$1" '{v[$1 " " $2] = $c} END {for (k in v) if (k ~ /^B /) {split(k, p, " "); print v[k] - v["A " p[2]]}}' \
    "$work/rows" | median
}
echo
echo "Paired by round (B - A, median): memory cpu $(paired 3) ns, memtransfer cpu $(paired 4) ns"
