#!/usr/bin/env bash
# The file module's cost per traced open or close, against heaptrack's per malloc or free:
# bench/churn/fd_churn.c (open + close of /dev/null) plain and under `rtrace record -e file`,
# bench/churn/churn.c (malloc + free) plain and under heaptrack; median of RUNS runs each,
# interleaved so that machine noise hits all alike. Figures in ns per operation: wall time of the
# churn loop and CPU time of the churning thread (what a tracer adds inline).
# Usage: measure-file.sh <build dir> [iterations] [runs]
set -euo pipefail
build=$(realpath "${1:-build}")
iterations=${2:-200000}
runs=${3:-5}
bin="$build/bin"
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# "<wall ns/op> <thread cpu ns/op>" of one run.
once() {
  rm -rf "$work/out" && mkdir "$work/out"
  "$@" 2> /dev/null | sed -n 's/.* ns_per_op=\([0-9.]*\) cpu_ns_per_op=\([0-9.]*\).*/\1 \2/p'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

for name in fd_plain fd_rtrace malloc_plain malloc_heaptrack; do : > "$work/$name"; done
for _ in $(seq "$runs"); do
  once "$bin/rtrace-fd-churn" "$iterations" >> "$work/fd_plain"
  once "$bin/rtrace" record -q -s -e file -b 10 -o "$work/out" -x "$bin/rtrace-fd-churn" \
    "$iterations" >> "$work/fd_rtrace"
  once "$bin/rtrace-churn" "$iterations" >> "$work/malloc_plain"
  once heaptrack -o "$work/out/heaptrack" "$bin/rtrace-churn" "$iterations" >> "$work/malloc_heaptrack"
done
column() { awk -v c="$2" '{print $c}' "$work/$1" | median; }
echo "| run | wall ns/op | thread CPU ns/op |"
echo "|---|---|---|"
for name in fd_plain fd_rtrace malloc_plain malloc_heaptrack; do
  echo "| $name | $(column "$name" 1) | $(column "$name" 2) |"
done
awk -v fp="$(column fd_plain 2)" -v fr="$(column fd_rtrace 2)" -v mp="$(column malloc_plain 2)" \
    -v mh="$(column malloc_heaptrack 2)" 'BEGIN {
  printf "\nadded thread CPU per operation: rtrace -e file %.0f ns (open/close), heaptrack %.0f ns (malloc/free): ratio %.2f\n",
         fr - fp, mh - mp, (fr - fp) / (mh - mp) }'
