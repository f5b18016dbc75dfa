#!/usr/bin/env bash
# The file module's cost per traced open or close, against heaptrack's per malloc or free:
# bench/churn/fd_churn.c (open + close of /dev/null) plain and under `rtrace record -e file`,
# bench/churn/churn.c (malloc + free) plain and under heaptrack; RUNS runs each, interleaved so
# that machine noise hits all alike. Figures in ns per operation: wall time of the churn loop and
# CPU time of the churning thread (clock_gettime(CLOCK_THREAD_CPUTIME_ID) in the churn itself:
# what a tracer adds inline).
#
# Besides the medians of each column, every run's traced figure is paired with the plain run just
# before it (the descriptor churn's plain base is about 1-2 us of system calls and drifts with the
# load by tens of ns between runs): the median of those paired differences, and of each run's
# ratio to heaptrack's paired difference, with their quartiles, say how firm the comparison is.
# BEFORE_LIBDIR=DIR also runs `rtrace record` with the tracer libraries of DIR (another build) in
# the same rounds: a before/after comparison under the same noise.
#
# Usage: [BEFORE_LIBDIR=DIR] measure-file.sh <build dir> [iterations] [runs]
set -euo pipefail
build=$(realpath "${1:-build}")
iterations=${2:-200000}
runs=${3:-5}
bin="$build/bin"
before=${BEFORE_LIBDIR:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# "<wall ns/op> <thread cpu ns/op>" of one run.
once() {
  rm -rf "$work/out" && mkdir "$work/out"
  "$@" 2> /dev/null | sed -n 's/.* ns_per_op=\([0-9.]*\) cpu_ns_per_op=\([0-9.]*\).*/\1 \2/p'
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# "<lower quartile> <median> <upper quartile>" of the numbers on standard input.
quartiles() {
  sort -g | awk '{a[NR]=$1} function at(q,  i, f) { i = 1 + q * (NR - 1); f = int(i);
    return a[f] + (i - f) * (a[f + 1 < NR ? f + 1 : NR] - a[f]) }
    END { printf "%.2f %.2f %.2f", at(0.25), at(0.5), at(0.75) }'
}

names="fd_plain fd_rtrace${before:+ fd_before} malloc_plain malloc_heaptrack"
for name in $names; do : > "$work/$name"; done
rtrace_fd() {
  "$bin/rtrace" record -q -s -e file -b 10 -o "$work/out" -x "$bin/rtrace-fd-churn" "$iterations"
}
for _ in $(seq "$runs"); do
  once "$bin/rtrace-fd-churn" "$iterations" >> "$work/fd_plain"
  once rtrace_fd >> "$work/fd_rtrace"
  if [[ -n $before ]]; then
    RTRACE_LIBDIR=$before once rtrace_fd >> "$work/fd_before"
  fi
  once "$bin/rtrace-churn" "$iterations" >> "$work/malloc_plain"
  once heaptrack -o "$work/out/heaptrack" "$bin/rtrace-churn" "$iterations" >> "$work/malloc_heaptrack"
done
column() { awk -v c="$2" '{print $c}' "$work/$1" | median; }
echo "| run | wall ns/op | thread CPU ns/op |"
echo "|---|---|---|"
for name in $names; do
  echo "| $name | $(column "$name" 1) | $(column "$name" 2) |"
done
awk -v fp="$(column fd_plain 2)" -v fr="$(column fd_rtrace 2)" -v mp="$(column malloc_plain 2)" \
    -v mh="$(column malloc_heaptrack 2)" 'BEGIN {
  printf "\nadded thread CPU per operation: rtrace -e file %.0f ns (open/close), heaptrack %.0f ns (malloc/free): ratio %.2f\n",
         fr - fp, mh - mp, (fr - fp) / (mh - mp) }'

# Paired: each run's traced CPU figure minus the plain one of the same run.
paired() { paste "$work/$1" "$work/$2" | awk '{print $4 - $2}'; }
paired fd_plain fd_rtrace > "$work/added_rtrace"
paired malloc_plain malloc_heaptrack > "$work/added_heaptrack"
paste "$work/added_rtrace" "$work/added_heaptrack" | awk '{print $1 / $2}' > "$work/ratio_rtrace"
echo
echo "paired per run (thread CPU ns/op; lower quartile, median, upper quartile of $runs runs):"
echo "  heaptrack adds      $(quartiles < "$work/added_heaptrack")"
echo "  rtrace -e file adds $(quartiles < "$work/added_rtrace")  ratio to heaptrack $(quartiles < "$work/ratio_rtrace")"
if [[ -n $before ]]; then
  paired fd_plain fd_before > "$work/added_before"
  paste "$work/added_before" "$work/added_heaptrack" | awk '{print $1 / $2}' > "$work/ratio_before"
  paste "$work/added_rtrace" "$work/added_before" | awk '{print $1 - $2}' > "$work/after_minus_before"
  echo "  BEFORE_LIBDIR adds  $(quartiles < "$work/added_before")  ratio to heaptrack $(quartiles < "$work/ratio_before")"
  echo "  this build minus BEFORE_LIBDIR, same run: $(quartiles < "$work/after_minus_before")"
fi
