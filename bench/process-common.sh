# Sourced by bench/process.sh and bench/process-ab.sh: the synthetic trace they time and the
# median of a column of numbers.

# make_churn_trace BUILD CALLS DIR: DIR/churn.raw (CALLS calls, depth 10, 5000 stacks, the shape
# of the original's churn figures) and DIR/churn.txt, made by BUILD's tools.
make_churn_trace() {
  "$1/bin/rtrace-gen-trace" --calls "$2" --depth 10 --stacks 5000 -o "$3/churn.raw"
  "$1/bin/rtrace" process -i "$3/churn.raw" -o "$3/churn.txt"
}

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
