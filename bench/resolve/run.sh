#!/usr/bin/env bash
# Resolver benchmark: the same distinct addresses (return addresses sampled from libc,
# libstdc++ and a large C++ program with debug information) resolved by rtrace resolve, GNU
# addr2line, eu-addr2line and llvm-symbolizer, with time, peak memory and agreement with
# llvm-symbolizer.
#
#   bench/resolve/run.sh [BUILD_DIR] [ADDRESSES] [RUNS]
#
# The C++ program is a copy of BUILD_DIR/bin/rtrace (taken once, so its addresses stay valid), or
# of CXX_PROGRAM when set (to compare two builds on the same input).
# Needs python3, binutils (objdump, addr2line), elfutils (eu-addr2line) and llvm-symbolizer
# (Debian package llvm); libc's debug information comes from libc6-dbg when installed.
set -euo pipefail
build=${1:-build}
count=${2:-100000}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-resolve-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

llvm=$(command -v llvm-symbolizer || ls /usr/bin/llvm-symbolizer-* 2>/dev/null | head -1 || true)
[[ -n "$llvm" ]] || { echo "llvm-symbolizer not found (apt-get install llvm)" >&2; exit 1; }
libdir=/usr/lib/x86_64-linux-gnu
cp "${CXX_PROGRAM:-$build/bin/rtrace}" "$work/cxx-program"
files=("$libdir/libc.so.6" "$(readlink -f "$libdir/libstdc++.so.6")" "$work/cxx-program")
echo "inputs: $("$here/make_inputs.py" "$work" "$count" "${files[@]}")"
echo "C++ program: $(stat -c %s "$work/cxx-program") bytes, .text $(objdump -h "$work/cxx-program" \
  | awk '$2 == ".text" {print "0x" $3}' | xargs printf '%d') bytes"

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# measure LABEL CMD...: CMD is a shell snippet run $runs times; prints median wall, CPU, max RSS.
measure() {
  local label=$1 snippet=$2 walls=() cpus=() rss=0
  for _ in $(seq "$runs"); do
    : > "$work/times"
    local start end
    start=$(date +%s.%N)
    TIMEFILE="$work/times" bash -c "$snippet"
    end=$(date +%s.%N)
    walls+=("$(echo "$end - $start" | bc)")
    cpus+=("$(awk '{s += $1 + $2} END {print s}' "$work/times")")
    rss=$(awk -v r="$rss" '{if ($3 > r) r = $3} END {print r}' "$work/times")
  done
  printf '%-16s wall %6.3f s  cpu %6.3f s  peak RSS %7.1f MB\n' "$label" \
    "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)" \
    "$(echo "$rss / 1024" | bc -l)"
}
timed='/usr/bin/time -a -o "$TIMEFILE" -f "%U %S %M"'

echo "median of $runs runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
measure "rtrace resolve" "$timed $build/bin/rtrace resolve -i $work/trace.txt -o $work/rtrace.out"
per_file() {  # per_file OUTPUT_PREFIX TOOL ARGS...: one run per file, addresses on stdin
  local prefix=$1; shift
  local snippet="" i
  for i in "${!files[@]}"; do
    snippet+="$timed $* ${files[$i]} < $work/$i.addr > $work/$prefix.$i.out; "
  done
  echo "$snippet"
}
measure "addr2line" "$(per_file addr2line addr2line -f -C -e)"
# eu-addr2line scans its tables for every address (minutes per run): one run; SKIP_EU_ADDR2LINE=1
# leaves it out.
if [[ -z "${SKIP_EU_ADDR2LINE:-}" ]]; then
  runs_all=$runs; runs=1
  measure "eu-addr2line" "$(per_file eu-addr2line eu-addr2line -f -C -e)"
  runs=$runs_all
fi
measure "llvm-symbolizer" "$(per_file llvm "$llvm" --demangle --obj)"
"$here/compare.py" "$work" ${SHOW_DIFFERENCES:-}
[[ -n "${KEEP_WORK:-}" ]] && { cp -r "$work" "$KEEP_WORK"; echo "kept in $KEEP_WORK"; }
