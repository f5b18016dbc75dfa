#!/usr/bin/env bash
# `rtrace apitrace dump` throughput: generates a synthetic trace of CALLS calls (Snappy, version
# 6, GL-like) in a private directory and times RUNS dumps to a file; prints the medians.
#   bench/apitrace/run.sh BUILD_DIR [CALLS] [RUNS]
set -euo pipefail
build=${1:-build}
calls=${2:-5000000}
runs=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/bin/rtrace-gen-apitrace" --calls "$calls" -o "$work/bench.trace"
echo "trace: $calls calls, $(stat -c %s "$work/bench.trace") bytes"
walls=() users=() rss=()
for _ in $(seq "$runs"); do
  /usr/bin/time -o "$work/time" -f "%e %U %M" \
    "$build/bin/rtrace" apitrace dump --color=never "$work/bench.trace" > "$work/dump.txt"
  read -r wall user kb < "$work/time"
  walls+=("$wall") users+=("$user") rss+=("$kb")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall=$(median "${walls[@]}") user=$(median "${users[@]}") kb=$(median "${rss[@]}")
echo "dump: $(stat -c %s "$work/dump.txt") bytes of text"
echo "median of $runs: wall ${wall} s, user ${user} s, max RSS ${kb} KB"
echo "calls/s: wall $(echo "$calls / $wall" | bc), user $(echo "$calls / $user" | bc)"
