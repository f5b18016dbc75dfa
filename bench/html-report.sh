#!/usr/bin/env bash
# rtrace report --html on the 2 M-call churn trace of process.sh: time and memory of writing the
# page, its size, and how long headless Chromium takes to draw it (the page records the time
# from the start of the navigation to the page drawn, and of that in its own script). The small
# page of the bundled example is drawn alongside, as the browser's baseline on this machine.
set -euo pipefail
build=${1:-build}
bin=$build/bin
runs=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/rtrace-bench-html.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin/rtrace-gen-trace" --calls 2000000 --depth 10 --stacks 5000 -o "$work/churn.raw"
"$bin/rtrace" record -q -s -e memory -o "$work" -x "$build/examples/leaky" > /dev/null
"$bin/rtrace" report -q --html "$work/small.html" -i "$(ls "$work"/*-*.rtrace)"

draw() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --dump-dom "file://$1" 2>/dev/null |
    grep -o 'data-render-ms="[0-9]*" data-script-ms="[0-9]*"'
}

echo "== rtrace report --html (2,000,000 calls, 5000 stacks; load: $(cut -d' ' -f1-3 /proc/loadavg))"
for _ in $(seq "$runs"); do
  /usr/bin/time -f '%e s wall, %U user %S sys, %M KB max RSS' \
    "$bin/rtrace" report -q --html "$work/churn.html" -i "$work/churn.raw"
done
echo "page: $(stat -c %s "$work/churn.html") bytes"
for _ in $(seq "$runs"); do
  echo "2 M-call page: $(draw "$work/churn.html"); example page: $(draw "$work/small.html")"
done
