# Helpers the side-by-side benchmarks source: run-tracer.sh, run-tracer-cpu.sh, run-compile.sh,
# run-memtransfer.sh, memtransfer-ab.sh and (through process-common.sh) the process benchmarks.
# They expect $work, a directory of their own (mktemp -d).

# The median of the numbers on stdin.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# The 95 % confidence interval of the median of the numbers on stdin, as LO-HI with DIGITS
# decimals (default 2): the order statistics k and n + 1 - k with k = (n - 1.96 sqrt(n)) / 2
# rounded down, which hold the median with at least 95 % chance whatever the distribution (the
# sign test's interval). "-" for fewer than 6 numbers, where no such k exists.
median_interval() {
  sort -g | awk -v d="${1:-2}" '{a[NR] = $1} END {
    k = int((NR - 1.96 * sqrt(NR)) / 2)
    if (k < 1) { print "-"; exit }
    printf "%.*f-%.*f", d, a[k], d, a[NR + 1 - k] }'
}

# "cpu wall": the nanoseconds per operation a churn program of bench/churn (COMMAND...) reports,
# its cpu_ns_per_op and ns_per_op.
churn_figures() {
  local line
  line=$("$@" 2> "$work/err" | grep -o 'ns_per_op=.*') || { cat "$work/err" >&2; exit 1; }
  sed -E 's/ns_per_op=([0-9.]+) cpu_ns_per_op=([0-9.]+).*/\2 \1/' <<< "$line"
}

# The user + system CPU seconds of every child this shell has waited for, from the output of
# bash's `times` (which has to run in this shell itself, not in a $(...) subshell).
children_cpu() {
  tail -1 "$1" | awk '{
    total = 0
    for (i = 1; i <= 2; ++i) { split($i, t, /[ms]/); total += t[1] * 60 + t[2] }
    printf "%.3f", total
  }'
}

# Runs the command once with an empty output directory $work/out-NAME; appends its wall seconds
# to $work/NAME.times and the CPU seconds it and its children used to $work/NAME.cpu (what
# a loaded machine changes least).
timed() {
  local name=$1
  shift
  rm -rf "$work/out-$name" && mkdir "$work/out-$name"
  times > "$work/cpu-before"
  local start=$EPOCHREALTIME
  "$@" > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}' >> "$work/$name.times"
  times > "$work/cpu-after"
  awk -v a="$(children_cpu "$work/cpu-before")" -v b="$(children_cpu "$work/cpu-after")" \
    'BEGIN {printf "%.3f\n", b - a}' >> "$work/$name.cpu"
}

# The bytes in $work/out-NAME, in MB with DIGITS decimals (default 1).
size_mb() { du -bc "$work/out-$1" | tail -1 | awk -v d="${2:-1}" '{printf "%.*f", d, $1 / 1e6}'; }
