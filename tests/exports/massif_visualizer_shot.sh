#!/usr/bin/env bash
# Opens a massif file in massif-visualizer on the X display already set (the test runs this
# under xvfb-run), waits until its chart is drawn, and leaves in OUT_DIR: massif-visualizer.png
# (the screen), colours.txt (xwd_to_png.py's saturated colours with at least 1000 pixels each)
# and massif-visualizer.log (what it printed: the file as it parsed it).
# Usage: massif_visualizer_shot.sh MASSIF_FILE OUT_DIR
set -euo pipefail
massif=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
dump=$(mktemp)
massif-visualizer "$massif" > "$out/massif-visualizer.log" 2>&1 &
viewer=$!
trap 'kill "$viewer" 2> /dev/null || true; rm -f "$dump"' EXIT
# The chart is drawn some time after the window shows: look again every half second, for at
# most a minute, until two colour areas of 1000 pixels are there (or massif-visualizer ended).
for _ in $(seq 120); do
  sleep 0.5
  kill -0 "$viewer" 2> /dev/null || break
  xwd -root -silent > "$dump"
  python3 "$here/xwd_to_png.py" "$dump" "$out/massif-visualizer.png" 1000 > "$out/colours.txt"
  [[ $(wc -l < "$out/colours.txt") -ge 2 ]] && break
done
