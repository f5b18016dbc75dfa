#!/usr/bin/env bash
# What sampled recording costs (rtrace record --sample-bytes 512K, tcmalloc's and jemalloc's
# default interval) against the program's plain run, on three programs: the 8-thread C++-style
# churn of bench/churn, python3 running an allocation-heavy script, and cc1plus compiling one of
# the project's larger sources. Runs are interleaved (plain, sampled, plain, ...); prints the
# median wall time of each and their ratio. Run it at normal priority on an idle machine.
#
#   bench/sampling.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
rtrace=$build/bin/rtrace
churn=$build/bin/rtrace-churn
[[ -x $rtrace ]] || { echo "missing $rtrace (build the target rtrace)" >&2; exit 1; }
[[ -x $churn ]] || { echo "missing $churn (build the target rtrace-churn)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-sampling.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/timing.sh
source "$(dirname "$0")/timing.sh"

# python3: dictionaries, lists and strings made and dropped, about 3 s plain.
cat > "$work/allocations.py" << 'PY'
table = {}
for round in range(30):
    rows = [{"id": i, "name": "row %d" % i, "tags": [str(i), str(i * 2)]} for i in range(40000)]
    table[round % 4] = rows
    text = "".join(row["name"] for row in rows)
print(len(table), len(text))
PY
python=(python3 "$work/allocations.py")

# cc1plus, run directly with the arguments g++ gives it (one process to trace).
source_file=src/reports/report_builder.cpp
compile=(g++ -std=c++20 -O2 -g -I src -I "$build/generated" -c "$source_file" -o "$work/out.o")
line=$("${compile[@]}" -### 2>&1 | grep '/cc1plus"\? ' | head -1)
eval "cc1plus=($line)"
for i in "${!cc1plus[@]}"; do
  if [[ ${cc1plus[$i]} == -o ]]; then cc1plus[i + 1]=$work/out.s; fi
done

churn_run=("$churn" 10000000 8)
sampled() { "$rtrace" record -q --sample-bytes 512K -o "$work/out-$1" -x "${@:2}"; }

for _ in $(seq "$runs"); do
  timed churn-plain "${churn_run[@]}" > /dev/null
  timed churn-sampled sampled churn-sampled "${churn_run[@]}" > /dev/null
  timed python-plain "${python[@]}" > /dev/null
  timed python-sampled sampled python-sampled "${python[@]}" > /dev/null
  timed cc1plus-plain "${cc1plus[@]}"
  timed cc1plus-sampled sampled cc1plus-sampled "${cc1plus[@]}"
done

echo "median wall time of $runs interleaved runs, $(nproc) cores, load average" \
     "$(cut -d' ' -f1-3 /proc/loadavg) at the end, $(date -u +%F)"
echo
echo "| program | plain | --sample-bytes 512K | ratio |"
echo "|---|---|---|---|"
for program in churn python cc1plus; do
  p=$(median < "$work/$program-plain.times")
  s=$(median < "$work/$program-sampled.times")
  awk -v n="$program" -v p="$p" -v s="$s" \
    'BEGIN { printf "| %s | %.3f s | %.3f s | %.3fx |\n", n, p, s, s / p }'
done
