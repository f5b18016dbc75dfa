#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets with clang (ASan+UBSan) in BUILD (default build-fuzz;
# a build folder already configured with them, such as `make check-sanitize`'s, is used as it is)
# and runs each for FUZZ_SECONDS (default 60) from a seed corpus made of the fixtures and the
# regression inputs. Every input that crashes, hangs or trips a sanitizer is kept under
# BUILD/fuzz-findings/<target>/ and makes the script fail; add it to tests/fuzz-regressions/ with
# the fix.
#
# Usage: scripts/fuzz.sh [BUILD] [TARGET...]
#        (FUZZ_SECONDS, FUZZ_CPU_SECONDS or FUZZ_RUNS from the environment)
#
# FUZZ_RUNS=N runs each target for N inputs from a fixed seed instead (CI: the same inputs on
# every machine, however fast). FUZZ_CPU_SECONDS=N runs each target until it has used N seconds
# of CPU (on a shared machine a niced fuzzer gets less CPU than wall-clock time).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-fuzz}
shift || true
seconds=${FUZZ_SECONDS:-60}
cpu_budget=
if [[ -n "${FUZZ_RUNS:-}" ]]; then
  limit=(-runs="$FUZZ_RUNS" -seed=1)
  budget="$FUZZ_RUNS runs"
elif [[ -n "${FUZZ_CPU_SECONDS:-}" ]]; then
  # Stopped by the watcher below; the wall-clock limit only ends a run that gets no CPU at all.
  cpu_budget=$FUZZ_CPU_SECONDS
  limit=(-max_total_time=$((FUZZ_CPU_SECONDS * 20)))
  budget="${FUZZ_CPU_SECONDS} CPU-seconds"
else
  limit=(-max_total_time="$seconds")
  budget="${seconds}s"
fi
fixtures=${RTRACE_FIXTURES:-$root/../shared/fixtures}

if [[ ! -f "$build/build.ninja" ]]; then
  launcher=()
  if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER="$root/scripts/ccache-launcher.sh"
              -DCMAKE_CXX_COMPILER_LAUNCHER="$root/scripts/ccache-launcher.sh")
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRTRACE_BUILD_FUZZERS=ON -DRTRACE_BUILD_TESTS=OFF -DRTRACE_BUILD_BENCH=OFF
fi
cmake --build "$build" -j "$(nproc)" --target rtrace_fuzzers

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(cd "$build/fuzz" && ls fuzz_* | grep -v '\.' | sort)
fi

# The seed corpus: every fixture file (all formats: each reader learns from the others too) and
# every regression input, copied so that libFuzzer's additions never land in the sources.
seeds=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-fuzz.XXXXXX")
trap 'rm -rf "$seeds"' EXIT
if [[ -d "$fixtures" ]]; then
  find "$fixtures" -type f -size -4M ! -name '*.md' -exec cp --backup=numbered -t "$seeds" {} +
fi
cp -t "$seeds" "$root"/tests/fuzz-regressions/*/* 2>/dev/null || true
# Seeds of formats without fixtures (the compact recording format).
cp --backup=numbered -t "$seeds" "$root"/fuzz/seeds/*/* 2>/dev/null || true

# The CPU seconds (user + system) process `pid` has used so far.
cpu_seconds() {
  awk -v tick="$(getconf CLK_TCK)" '{ print int(($14 + $15) / tick) }' "/proc/$1/stat"
}

# Runs one target and notes the CPU it used (sampled every second); with a CPU budget, interrupts it (SIGINT: libFuzzer prints its statistics and
# exits with 72) once it has used that much CPU.
run_target() {
  local target=$1 corpus=$2 findings=$3 log=$4
  "$build/fuzz/$target" "$corpus" "$seeds" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$findings/" -print_final_stats=1 2> "$log" &
  local pid=$! used=0 status=0
  while kill -0 "$pid" 2> /dev/null; do
    used=$(cpu_seconds "$pid" 2> /dev/null || echo "$used")
    if [[ -n "$cpu_budget" ]] && ((used >= cpu_budget)); then
      kill -INT "$pid"
      break
    fi
    sleep 1
  done
  wait "$pid" || status=$?
  echo "stat::cpu_seconds: $used" >> "$log"
  # 72: interrupted by the watcher, with nothing found.
  [[ $status -eq 0 || ( -n "$cpu_budget" && $status -eq 72 && -z "$(ls -A "$findings")" ) ]]
}

failed=()
for target in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$target"
  findings="$build/fuzz-findings/$target"
  mkdir -p "$corpus" "$findings"
  echo "== $target: $budget" >&2
  if ! run_target "$target" "$corpus" "$findings" "$build/fuzz-findings/$target.log"; then
    failed+=("$target")
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb|cpu_seconds)|^Done' \
    "$build/fuzz-findings/$target.log" >&2 || true
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "rtrace fuzz: findings in ${failed[*]} (see $build/fuzz-findings/)" >&2
  exit 1
fi
echo "rtrace fuzz: ${#targets[@]} targets, $budget each, no findings" >&2
