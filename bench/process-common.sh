# Sourced by bench/process.sh, bench/process-ab.sh and bench/lc-recorded.sh: the synthetic trace
# they time, and timing.sh's helpers (median).

# shellcheck source=bench/timing.sh
source "$(dirname "${BASH_SOURCE[0]}")/timing.sh"

# make_churn_trace BUILD CALLS DIR: DIR/churn.raw (CALLS calls, depth 10, 5000 stacks, the shape
# of the original's churn figures) and DIR/churn.txt, made by BUILD's tools.
make_churn_trace() {
  "$1/bin/rtrace-gen-trace" --calls "$2" --depth 10 --stacks 5000 -o "$3/churn.raw"
  "$1/bin/rtrace" process -i "$3/churn.raw" -o "$3/churn.txt"
}
