#!/usr/bin/env bash
# Runs every benchmark side by side; figures go to standard output (copy them into RESULTS.md
# with the command that produced them).
set -euo pipefail
build=${1:-build}
here=$(dirname "$0")
"$here/process.sh" "$build"
"$here/lc-recorded.sh" "$build"
for script in "$here"/run-tracer.sh "$here"/run-memtransfer.sh "$here"/callgrind-memtransfer.sh \
              "$here"/resolve/run.sh \
              "$here"/html-report.sh; do
  [[ -x "$script" ]] && "$script" "$build"
done
