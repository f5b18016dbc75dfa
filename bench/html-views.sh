#!/usr/bin/env bash
# The HTML page of a 2 M-call trace with 100 k distinct backtraces (the analysis views' worst
# case): how long rtrace takes to write it, its size, and in headless Chromium (puppeteer-core,
# bench/html-views.js) its first paint and the views' redraw after a switch, medians of RUNS.
set -euo pipefail
build=${1:-build}
bin=$build/bin
runs=${RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench-views.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin/rtrace-gen-trace" -n 2000000 -d 10 -k 100000 --every-stack -o "$work/stacks.raw"
echo "== rtrace report --html (2,000,000 calls, 100,000 stacks; load: $(cut -d' ' -f1-3 /proc/loadavg))"
/usr/bin/time -f '%e s wall, %U user %S sys, %M KB max RSS' \
  "$bin/rtrace" report -q --html "$work/stacks.html" -i "$work/stacks.raw"
echo "page: $(stat -c %s "$work/stacks.html") bytes"
node "$(dirname "$0")/html-views.js" "$work/stacks.html" "$runs"
