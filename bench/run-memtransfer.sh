#!/usr/bin/env bash
# The memtransfer module's cost per traced call against the memory module's: bench/churn's
# allocation churn (malloc + free) under `rtrace record -e memory` and its transfer counterpart
# (memcpy + memset, bench/churn/transfer_churn.c: same call chains, same number of calls) under
# `rtrace record -e memtransfer`, each also run plain; and the memory module with -A (backtraces
# for the frees too), where, as for memtransfer, every traced call carries a backtrace. Prints, per traced call, the CPU time of
# the program's own thread (what the tracer adds inline; the machine's load barely moves it) and
# the wall time of the churn loop, medians of RUNS runs, and what each module adds.
#
#   bench/run-memtransfer.sh [BUILD_DIR] [ITERATIONS] [RUNS]
set -euo pipefail
build=${1:-build}
iterations=${2:-1000000}
runs=${3:-5}
bin=$build/bin
for tool in "$bin/rtrace-churn" "$bin/rtrace-transfer-churn" "$bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn rtrace-transfer-churn rtrace)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# "cpu wall": medians of the program's cpu_ns_per_op and ns_per_op over RUNS runs.
per_op() {
  local cpu=() wall=()
  for _ in $(seq "$runs"); do
    rm -rf "$work/out" && mkdir "$work/out"
    local line
    line=$("$@" 2> "$work/err" | grep -o 'ns_per_op=.*') || { cat "$work/err" >&2; exit 1; }
    wall+=("$(sed -E 's/ns_per_op=([0-9.]+).*/\1/' <<< "$line")")
    cpu+=("$(sed -E 's/.*cpu_ns_per_op=([0-9.]+).*/\1/' <<< "$line")")
  done
  echo "$(printf '%s\n' "${cpu[@]}" | median) $(printf '%s\n' "${wall[@]}" | median)"
}

record() { "$bin/rtrace" record -q -s -e "$1" -o "$work/out" -x "${@:2}"; }
record_all() { "$bin/rtrace" record -q -s -A -e "$1" -o "$work/out" -x "${@:2}"; }

read -r mem_plain_cpu mem_plain_wall < <(per_op "$bin/rtrace-churn" "$iterations" 1)
read -r mem_cpu mem_wall < <(per_op record memory "$bin/rtrace-churn" "$iterations" 1)
read -r all_cpu all_wall < <(per_op record_all memory "$bin/rtrace-churn" "$iterations" 1)
read -r mt_plain_cpu mt_plain_wall < <(per_op "$bin/rtrace-transfer-churn" "$iterations")
read -r mt_cpu mt_wall < <(per_op record memtransfer "$bin/rtrace-transfer-churn" "$iterations")

echo "Per traced call, $((2 * iterations)) calls per run, median of $runs runs, depth 10," \
     "$(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u '+%F %H:%M') UTC"
echo
echo "| module | program | plain cpu | traced cpu | added cpu | plain wall | traced wall | added wall |"
echo "|---|---|---|---|---|---|---|---|"
awk -v pc="$mem_plain_cpu" -v tc="$mem_cpu" -v pw="$mem_plain_wall" -v tw="$mem_wall" 'BEGIN {
  printf "| memory | rtrace-churn (malloc + free) | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns |\n",
         pc, tc, tc - pc, pw, tw, tw - pw }'
awk -v pc="$mem_plain_cpu" -v tc="$all_cpu" -v pw="$mem_plain_wall" -v tw="$all_wall" 'BEGIN {
  printf "| memory -A | rtrace-churn (malloc + free) | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns |\n",
         pc, tc, tc - pc, pw, tw, tw - pw }'
awk -v pc="$mt_plain_cpu" -v tc="$mt_cpu" -v pw="$mt_plain_wall" -v tw="$mt_wall" 'BEGIN {
  printf "| memtransfer | rtrace-transfer-churn (memcpy + memset) | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns |\n",
         pc, tc, tc - pc, pw, tw, tw - pw }'
awk -v m="$mem_cpu" -v mp="$mem_plain_cpu" -v t="$mt_cpu" -v tp="$mt_plain_cpu" \
    -v mw="$mem_wall" -v mpw="$mem_plain_wall" -v tw="$mt_wall" -v tpw="$mt_plain_wall" 'BEGIN {
  printf "\nmemtransfer adds %.2fx the memory module'\''s cost per call (cpu), %.2fx (wall)\n",
         (t - tp) / (m - mp), (tw - tpw) / (mw - mpw) }'
awk -v m="$all_cpu" -v mp="$mem_plain_cpu" -v t="$mt_cpu" -v tp="$mt_plain_cpu" \
    -v mw="$all_wall" -v mpw="$mem_plain_wall" -v tw="$mt_wall" -v tpw="$mt_plain_wall" 'BEGIN {
  printf "memtransfer adds %.2fx the cost per call of the memory module with -A (cpu), %.2fx (wall)\n",
         (t - tp) / (m - mp), (tw - tpw) / (mw - mpw) }'
