#!/usr/bin/env bash
# `make demo`: trace the bundled example program and print its resolved leak report.
set -euo pipefail
build=${1:-build}
bin=$build/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== rtrace record -s -e memory -x examples/leaky"
echo "   (every allocation and release of the program, with its backtrace)"
"$bin/rtrace" record -q -s -e memory -o "$work" -x "$build/examples/leaky"
trace=$(ls "$work"/*.rtrace)
echo
echo "== rtrace process -lc | rtrace resolve"
echo "   (what was never freed, grouped by backtrace, named with source file and line)"
echo
"$bin/rtrace" process -lc -i "$trace" | "$bin/rtrace" resolve
echo "== rtrace report -n 3"
echo
"$bin/rtrace" report -n 3 -i "$trace"
echo
echo "== rtrace report --html"
echo "   (the same report as one page: timeline, flame graph, sortable tables; opens offline)"
mkdir -p "$build/demo"
html=$(cd "$build/demo" && pwd)/leaky-report.html
"$bin/rtrace" report -q --html "$html" -i "$trace"
echo
echo "   open file://$html"
