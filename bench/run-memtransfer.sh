#!/usr/bin/env bash
# The memtransfer module's cost per traced call against the memory module's, as a user records
# them: bench/churn's allocation churn (malloc + free) under `rtrace record -e memory` and its
# transfer counterpart (memcpy + memset, bench/churn/transfer_churn.c: same call chains, same
# number of calls) under `rtrace record -e memtransfer`, each also run plain; and the memory
# module with -A (backtraces for the frees too), where, as for memtransfer, every traced call
# carries a backtrace. Prints, per traced call, the CPU time of the program's own thread (what
# the tracer adds inline) and the wall time of the churn loop, and what each module adds.
#
# Interleaved: each of RUNS rounds runs all five once, the order turning by one every round, so
# that a change of the machine's load (other work on the two cores) falls on every column alike;
# the ratios are the medians of the rounds' own ratios (the load moves single figures by 20-40 %),
# each with the 95 % confidence interval of that median: a claim that one module costs no more
# than the other holds only as far as the interval reaches.
#
#   bench/run-memtransfer.sh [BUILD_DIR] [ITERATIONS] [RUNS] [FORMAT]
#
# FORMAT is what `rtrace record` writes: compact (its default) or sp-rtrace (the original binary
# protocol: a transfer is an allocation and a release, every one with all its frames, twice the
# bytes of the memory module's average call for the writer beside the program).
set -euo pipefail
build=${1:-build}
iterations=${2:-1000000}
runs=${3:-7}
format=${4:-compact}
bin=$build/bin
for tool in "$bin/rtrace-churn" "$bin/rtrace-transfer-churn" "$bin/rtrace"; do
  [[ -x $tool ]] || { echo "missing $tool (build rtrace-churn rtrace-transfer-churn rtrace)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

# "cpu wall" of one run of COMMAND..., with an empty output directory.
one_run() {
  rm -rf "$work/out" && mkdir "$work/out"
  churn_figures "$@"
}

# Depth 10, as the figures bench/RESULTS.md keeps (rtrace record's default is 64; a transfer's
# record shares its frames with the ring's previous one only up to 32, shared_frames.h).
record() { "$bin/rtrace" record -q -s -b 10 --format "$format" -e "$1" -o "$work/out" -x "${@:2}"; }
record_all() {
  "$bin/rtrace" record -q -s -A -b 10 --format "$format" -e "$1" -o "$work/out" -x "${@:2}"
}

# The five configurations: name and command.
names=(memory_plain memory memory_all transfer_plain memtransfer)
run_config() {
  case $1 in
    memory_plain) one_run "$bin/rtrace-churn" "$iterations" 1 ;;
    memory) one_run record memory "$bin/rtrace-churn" "$iterations" 1 ;;
    memory_all) one_run record_all memory "$bin/rtrace-churn" "$iterations" 1 ;;
    transfer_plain) one_run "$bin/rtrace-transfer-churn" "$iterations" ;;
    memtransfer) one_run record memtransfer "$bin/rtrace-transfer-churn" "$iterations" ;;
  esac
}

# rows: "round name cpu wall"
: > "$work/rows"
for round in $(seq "$runs"); do
  for i in "${!names[@]}"; do
    name=${names[$(((i + round) % ${#names[@]}))]}
    echo "$round $name $(run_config "$name")" >> "$work/rows"
  done
done

# The value of column C (3 cpu, 4 wall) of NAME in each round, one per line.
column_of() { awk -v n="$1" -v c="$2" '$2 == n {print $c}' "$work/rows"; }
# Per round: added(TRACED over PLAIN) in column C.
added_of() {
  awk -v t="$1" -v p="$2" -v c="$3" '$2 == t {v[$1] = $c} $2 == p {b[$1] = $c}
    END {for (r in v) print v[r] - b[r]}' "$work/rows"
}
# Per round: what memtransfer adds over what MEMORY_CONFIG adds, in column C.
ratio_of() {
  awk -v m="$1" -v c="$2" '{v[$1 " " $2] = $c; rounds[$1] = 1}
    END {for (r in rounds) {
      mem = v[r " " m] - v[r " memory_plain"]; mt = v[r " memtransfer"] - v[r " transfer_plain"]
      if (mem > 0) print mt / mem }}' "$work/rows"
}

echo "Per traced call, $((2 * iterations)) calls per run, medians of $runs interleaved rounds," \
     "depth 10, $format format, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
     "$(date -u '+%F %H:%M') UTC"
echo
echo "| module | program | plain cpu | traced cpu | added cpu | plain wall | traced wall | added wall |"
echo "|---|---|---|---|---|---|---|---|"
row() {
  local label=$1 program=$2 traced=$3 plain=$4
  printf '| %s | %s | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns |\n' "$label" "$program" \
    "$(column_of "$plain" 3 | median)" "$(column_of "$traced" 3 | median)" \
    "$(added_of "$traced" "$plain" 3 | median)" "$(column_of "$plain" 4 | median)" \
    "$(column_of "$traced" 4 | median)" "$(added_of "$traced" "$plain" 4 | median)"
}
row memory "rtrace-churn (malloc + free)" memory memory_plain
row "memory -A" "rtrace-churn (malloc + free)" memory_all memory_plain
row memtransfer "rtrace-transfer-churn (memcpy + memset)" memtransfer transfer_plain
echo
range() { sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f-%.2f", lo, hi}'; }
# "R.RRx (cpu; ...), R.RRx (wall; ...)" of memtransfer against MEMORY_CONFIG: the medians of the
# rounds' ratios, each with its 95 % confidence interval (timing.sh), and the range of the CPU's.
ratios_against() {
  printf "%.2fx (cpu; 95 %% interval %s, rounds %s), %.2fx (wall; 95 %% interval %s)" \
    "$(ratio_of "$1" 3 | median)" "$(ratio_of "$1" 3 | median_interval)" \
    "$(ratio_of "$1" 3 | range)" "$(ratio_of "$1" 4 | median)" \
    "$(ratio_of "$1" 4 | median_interval)"
}
echo "memtransfer adds $(ratios_against memory) the memory module's cost per call"
echo "memtransfer adds $(ratios_against memory_all) the cost per call of the memory module with -A"
