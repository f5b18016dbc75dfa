#!/usr/bin/env bash
# The layer check (scripts/check-includes.py) on copies of the tree: the tree as it is passes; an
# include that goes up the table, and a folder the table does not cover, each fail it with a
# message naming the file and line.
set -euo pipefail
root=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "check_includes_test: $*" >&2
  exit 1
}

# A copy of what the check reads, with `edit` applied; prints the check's messages and status.
check_copy() {
  local copy=$work/$1
  mkdir "$copy"
  cp -r "$root/src" "$root/include" "$root/docs" "$copy/"
  (cd "$copy" && eval "$2")
  python3 "$root/scripts/check-includes.py" "$copy" 2>&1 && echo "status 0" || echo "status $?"
}

out=$(check_copy as-is true)
[[ "$out" == "status 0" ]] || fail "the tree as it is: $out"

out=$(check_copy upward 'echo "#include \"cli/subcommands.h\"" >> src/model/metadata.cpp')
line=$(wc -l < "$root/src/model/metadata.cpp")
expected="check-includes: src/model/metadata.cpp:$((line + 1)): src/model includes src/cli (cli/subcommands.h), which its row does not list"
[[ "$out" == *"$expected"* && "$out" == *"status 1" ]] || fail "an upward include: $out"

out=$(check_copy tracer-to-formats 'echo "#include \"formats/format_registry.h\"" >> src/tracer/core/clock.cpp')
[[ "$out" == *"src/tracer/core includes src/formats"* && "$out" == *"status 1" ]] ||
  fail "the tracer including a format: $out"

out=$(check_copy new-folder 'mkdir src/newpart && echo "int x;" > src/newpart/part.cpp')
[[ "$out" == *"src/newpart/part.cpp: not in the layer table of docs/architecture.md"* &&
   "$out" == *"status 1" ]] || fail "a folder without a row: $out"

out=$(check_copy no-table 'sed -i "s/^## Layers/## Strata/" docs/architecture.md')
[[ "$out" == *"no layer table under '## Layers'"* && "$out" == *"status 2" ]] ||
  fail "a document without the table: $out"
echo "check_includes_test: all 5 cases as expected"
