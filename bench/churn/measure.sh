#!/usr/bin/env bash
# Per-operation cost of the churn program plain, under rtrace's tracer (managed mode, depth 10,
# timestamps on) and under heaptrack; best of N runs each, interleaved so that machine noise
# hits all three alike. Three figures per tool, in ns per operation: wall time of the churn loop;
# CPU time of the churning threads themselves (what the tracer adds inline, insensitive to other
# load on the machine); CPU time of the whole run, all threads and child processes included
# (heaptrack's interpreter, our drain thread, writing the trace), start-up included.
# Usage: measure.sh <build dir> [iterations] [threads] [runs]
set -euo pipefail
build=$(realpath "${1:-build}")
iterations=${2:-1000000}
threads=${3:-1}
runs=${4:-5}
churn="$build/bin/rtrace-churn"
lib="$build/lib"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Runs a command; prints "<wall ns/op> <thread cpu ns/op> <total cpu ns/op>".
measure() {
  local report
  report=$( { /usr/bin/time -f 'cpu=%U+%S' "$@" > "$out/stdout" 2> "$out/stderr"; } 2>&1 || true)
  local wall thread cpu
  wall=$(sed -n 's/.* ns_per_op=\([0-9.]*\).*/\1/p' "$out/stdout" "$out/stderr" | head -1)
  thread=$(sed -n 's/.*cpu_ns_per_op=\([0-9.]*\).*/\1/p' "$out/stdout" "$out/stderr" | head -1)
  cpu=$(sed -n 's/.*cpu=\([0-9.]*\)+\([0-9.]*\).*/\1 + \2/p' "$out/stderr" | tail -1)
  echo "$wall $thread $(echo "($cpu) * 1000000000 / ($iterations * 2 * $threads)" | bc -l)"
  rm -f "$out"/*.rtrace "$out"/heaptrack.*
}

declare -A wall thread cpu
for ((run = 0; run < runs; ++run)); do
  for tool in plain rtrace heaptrack; do
    case $tool in
      plain) read -r w t c < <(measure "$churn" "$iterations" "$threads") ;;
      rtrace) read -r w t c < <(measure env LD_PRELOAD="$lib/librtrace-main.so:$lib/librtrace-memory.so" \
        RTRACE_OPTIONS="start=1,depth=10,managed=$out" "$churn" "$iterations" "$threads") ;;
      heaptrack) command -v heaptrack > /dev/null || continue
        read -r w t c < <(measure heaptrack -o "$out/heaptrack" "$churn" "$iterations" "$threads") ;;
    esac
    wall[$tool]+="$w"$'\n'
    thread[$tool]+="$t"$'\n'
    cpu[$tool]+="$c"$'\n'
  done
done
best() { printf '%s' "$1" | sort -g | head -1; }
echo "threads=$threads iterations=$iterations runs=$runs (best of the runs, ns per operation)"
printf '%-10s %10s %12s %10s   overheads: %8s %12s %10s\n' tool wall thread-cpu cpu wall \
  thread-cpu cpu
plain_wall=$(best "${wall[plain]}")
plain_thread=$(best "${thread[plain]}")
plain_cpu=$(best "${cpu[plain]}")
for tool in plain rtrace heaptrack; do
  [[ -n "${wall[$tool]:-}" ]] || continue
  w=$(best "${wall[$tool]}")
  t=$(best "${thread[$tool]}")
  c=$(best "${cpu[$tool]}")
  printf '%-10s %10.1f %12.1f %10.1f              %8.1f %12.1f %10.1f\n' "$tool" "$w" "$t" "$c" \
    "$(echo "$w - $plain_wall" | bc -l)" "$(echo "$t - $plain_thread" | bc -l)" \
    "$(echo "$c - $plain_cpu" | bc -l)"
done
