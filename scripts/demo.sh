#!/usr/bin/env bash
# The main job of the README's first command: show what rtrace does on the bundled example.
set -euo pipefail
build=${1:-build}
bin=$build/bin
here=$(cd "$(dirname "$0")/.." && pwd)

echo "== rtrace process: the bundled trace examples/memory.rtrace (binary) as text, leaks only"
"$bin/rtrace" process -i "$here/examples/memory.rtrace"
