#!/usr/bin/env bash
# bench/process.sh's commands for two builds side by side: every round runs each command with
# build A, then with build B (and `cat` of the input as a reference for the machine's state), so
# that a busy machine slows both alike. Prints per command the median wall time and the median
# CPU time (user + sys, which a loaded machine disturbs less) of A and of B, and B / A.
#
#   bench/process-ab.sh BUILD_A BUILD_B [CALLS] [RUNS]
#
# The trace is generated once, by build B's rtrace-gen-trace, and converted to text by build B.
set -euo pipefail
a=$1
b=$2
calls=${3:-2000000}
runs=${4:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench-ab.XXXXXX")
trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/process-common.sh"
make_churn_trace "$b" "$calls" "$work"

# One timed run; appends "wall cpu" to the file $1.
timed() {
  local log=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" > /dev/null 2>&1
  awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time" >> "$log"
}

commands=(
  "binary -> text|process -i $work/churn.raw"
  "text -> text|process -i $work/churn.txt"
  "binary -> binary|process --to binary -i $work/churn.raw"
  "binary -lc|process -lc -i $work/churn.raw"
  "text -lc|process -lc -i $work/churn.txt"
  "binary -c|process -c -i $work/churn.raw"
  "report binary|report --no-resolve $work/churn.raw"
)

for _ in $(seq "$runs"); do
  timed "$work/cat.raw" cat "$work/churn.raw"
  timed "$work/cat.txt" cat "$work/churn.txt"
  for i in "${!commands[@]}"; do
    read -r -a arguments <<< "${commands[$i]#*|}"
    timed "$work/a.$i" "$a/bin/rtrace" "${arguments[@]}"
    timed "$work/b.$i" "$b/bin/rtrace" "${arguments[@]}"
  done
done

column() { cut -d' ' -f"$2" "$1" | median; }
echo "rtrace process A=$a B=$b, $calls calls, depth 10, median of $runs interleaved rounds," \
     "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end ($(date -u +%F))"
printf '%-18s %9s %9s %7s   %9s %9s %7s\n' command "wall A" "wall B" "B/A" "cpu A" "cpu B" "B/A"
printf '%-18s %8ss wall %8ss cpu\n' "cat churn.raw" "$(column "$work/cat.raw" 1)" "$(column "$work/cat.raw" 2)"
printf '%-18s %8ss wall %8ss cpu\n' "cat churn.txt" "$(column "$work/cat.txt" 1)" "$(column "$work/cat.txt" 2)"
for i in "${!commands[@]}"; do
  wa=$(column "$work/a.$i" 1); wb=$(column "$work/b.$i" 1)
  ca=$(column "$work/a.$i" 2); cb=$(column "$work/b.$i" 2)
  awk -v l="${commands[$i]%%|*}" -v wa="$wa" -v wb="$wb" -v ca="$ca" -v cb="$cb" 'BEGIN {
    printf "%-18s %8.2fs %8.2fs %7.2f   %8.2fs %8.2fs %7.2f\n", l, wa, wb, wb / (wa > 0 ? wa : 0.01),
           ca, cb, cb / (ca > 0 ? ca : 0.01)
  }'
done
