# Helpers the side-by-side benchmarks source: run-tracer.sh, run-compile.sh. They expect $work,
# a directory of their own (mktemp -d).

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Runs the command once with an empty output directory $work/out-NAME; appends its wall seconds
# to $work/NAME.times.
timed() {
  local name=$1
  shift
  rm -rf "$work/out-$name" && mkdir "$work/out-$name"
  local start=$EPOCHREALTIME
  "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}' >> "$work/$name.times"
}

# The bytes in $work/out-NAME, in MB with DIGITS decimals (default 1).
size_mb() { du -bc "$work/out-$1" | tail -1 | awk -v d="${2:-1}" '{printf "%.*f", d, $1 / 1e6}'; }
