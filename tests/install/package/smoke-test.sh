#!/usr/bin/env bash
# The smoke test of the installed Debian packages (rtrace, librtrace-context0,
# librtrace-context-dev), run by scripts/check-package.sh inside a throw-away Debian root where
# they are installed and nothing else of rtrace is: every command comes from PATH, every module
# from the package's folder, the context program is built from the installed header and
# pkg-config file. Usage: smoke-test.sh SOURCES, the folder holding this script's programs and
# examples/leaky.c. Needs gcc, g++, pkg-config, man-db and bash-completion. Each check prints
# what it expected and what it got when it fails; the first failure ends the run.
set -euo pipefail

sources=$(cd "${1:?usage: smoke-test.sh SOURCES}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() {
  echo "smoke test: FAILED: $*" >&2
  exit 1
}
# expect_line TEXT LINE WHAT: TEXT has the whole line LINE.
expect_line() {
  grep -qxF -- "$2" <<< "$1" || fail "$3: no line '$2' in:"$'\n'"$1"
}
# expect_match TEXT REGEX WHAT: a line of TEXT matches REGEX (grep -E).
expect_match() {
  grep -qE -- "$2" <<< "$1" || fail "$3: no line matching '$2' in:"$'\n'"$1"
}
# The one trace file in folder $1.
trace_in() {
  local traces=("$1"/*)
  [[ ${#traces[@]} -eq 1 && -f ${traces[0]} ]] || fail "$1: expected one trace, got: ${traces[*]}"
  echo "${traces[0]}"
}
# record FOLDER RECORD-OPTIONS... -- PROGRAM...: the trace of one run, in FOLDER.
record() {
  local folder=$1
  shift
  mkdir "$folder"
  rtrace record -q -o "$folder" "$@" > "$folder.out" || fail "rtrace record $*: status $?"
  trace_in "$folder"
}

echo "== smoke test: the installed commands" >&2
[[ $(command -v rtrace) == /usr/bin/rtrace ]] || fail "rtrace is $(command -v rtrace)"
env | grep -q '^RTRACE_LIBDIR=' && fail "RTRACE_LIBDIR is set"
multiarch=$(gcc -print-multiarch)
module_dir=/usr/lib/$multiarch/rtrace
version=$(dpkg-query -W -f='${Version}' rtrace)
expect_match "$(rtrace --version)" "^rtrace $version \\(" "rtrace --version"

# The installed recorder finds its modules in the package's folder, and every module the
# package ships is one it lists (scripts/check-package.sh compares the list with the build's).
modules=$(rtrace record -l)
expect_line "$modules" "(in $module_dir)" "rtrace record -l"
listed=$(awk 'NR > 1 && !/^\(in / { print $2 }' <<< "$modules" | sort)
shipped=$(find "$module_dir" -maxdepth 1 -name 'librtrace-*.so' -printf '%f\n' | sort)
[[ $listed == "$shipped" ]] || fail "rtrace record -l lists:"$'\n'"$listed"$'\n'"$module_dir has:"$'\n'"$shipped"

echo "== smoke test: a C program, -e file:memory, report and resolve" >&2
gcc -g -O0 -o leaky "$sources/leaky.c"
trace=$(record c-traces -e file:memory -x ./leaky)
report=$(rtrace report "$trace")
expect_line "$report" "command line: ./leaky" "rtrace report (C)"
expect_line "$report" "trace ended by: exit" "rtrace report (C)"
expect_match "$report" "^  memory \(memory allocation in bytes\): [0-9]+ calls, " "rtrace report (C)"
expect_match "$report" "^ +0x[0-9a-f]+ document_open\(\) at leaky\.c:19$" "rtrace report (C)"
# The file module was preloaded from the package (it names its library in the trace).
leaks=$(rtrace process -lc -i "$trace")
expect_match "$leaks" "^: $module_dir/librtrace-memory\.so => " "rtrace process -lc (C)"
expect_match "$leaks" "^: $module_dir/librtrace-file\.so => " "rtrace process -lc (C)"
expect_line "$leaks" "<1> : fd (file descriptor)" "rtrace process -lc (C)"
expect_line "$leaks" "<4> : memory (memory allocation in bytes)" "rtrace process -lc (C)"
expect_line "$leaks" "# allocation summary: 4 block(s) with total size 28" "rtrace process -lc (C)"
resolved=$(rtrace process -lc -i "$trace" | rtrace resolve)
expect_match "$resolved" $'^\t0x[0-9a-f]+ document_open\\(\\) at leaky\\.c:19$' "rtrace resolve (C)"
expect_match "$resolved" $'^\t0x[0-9a-f]+ main\\(\\) at leaky\\.c:44$' "rtrace resolve (C)"

echo "== smoke test: a C++ program" >&2
g++ -g -O0 -o cxx_leaks "$sources/cxx_leaks.cpp"
trace=$(record cxx-traces -x ./cxx_leaks)
report=$(rtrace report "$trace")
expect_line "$report" "command line: ./cxx_leaks" "rtrace report (C++)"
expect_match "$report" "^ +0x[0-9a-f]+ make_cache\(int\) at cxx_leaks\.cpp:11$" "rtrace report (C++)"
resolved=$(rtrace process -lc -i "$trace" | rtrace resolve)
expect_match "$resolved" $'^\t0x[0-9a-f]+ make_cache\\(int\\) at cxx_leaks\\.cpp:11$' \
  "rtrace resolve (C++)"
expect_match "$resolved" "\] operator new\(" "rtrace resolve (C++)"

echo "== smoke test: --audit" >&2
gcc -g -O0 -shared -fPIC -o libaudit_library.so "$sources/audit_library.c"
gcc -g -O0 -o audit_main "$sources/audit_main.c" -L. -laudit_library -Wl,-rpath,"$work"
trace=$(record audit-traces -e audit --audit 'audit_target_*' -x ./audit_main)
calls=$(rtrace process -i "$trace")
expect_line "$calls" "<1> : audit (virtual audit resource)" "rtrace process (--audit)"
[[ $(grep -c '\] audit_target_add(' <<< "$calls") -eq 3 ]] ||
  fail "--audit: expected 3 calls of audit_target_add in:"$'\n'"$calls"
grep -q 'audit_untraced' <<< "$calls" && fail "--audit: audit_untraced traced:"$'\n'"$calls"

echo "== smoke test: a program built with pkg-config rtrace-context" >&2
# shellcheck disable=SC2046  # pkg-config's flags are separate words
gcc -o contexts "$sources/contexts.c" $(pkg-config --cflags --libs rtrace-context)
untraced=$(./contexts)
[[ $untraced == "context 1, mask 0" ]] || fail "./contexts printed '$untraced'"
readelf -d contexts | grep -qF '[librtrace-context.so.0]' || fail "contexts needs no librtrace-context.so.0"
trace=$(record contexts-traces -x ./contexts)
in_context=$(rtrace process -l -C 1 -i "$trace")
expect_line "$in_context" "@ 1 : loading" "rtrace process -C 1"
expect_match "$in_context" "^[0-9]+\. @1 \[[0-9:.]+\] malloc\(100\) = 0x" "rtrace process -C 1"
grep -q 'malloc(200)' <<< "$in_context" && fail "rtrace process -C 1 kept the call outside:"$'\n'"$in_context"

echo "== smoke test: man rtrace" >&2
page=$(MANWIDTH=80 man rtrace 2> "$work/man.err" | col -b)
[[ ! -s "$work/man.err" ]] || fail "man rtrace: $(cat "$work/man.err")"
expect_match "$page" "^ +rtrace +- trace how a program allocates" "man rtrace"
man -w rtrace-record > /dev/null || fail "man rtrace-record: no page"

echo "== smoke test: bash completion" >&2
# As a user's shell does: an interactive login shell (bash -il) gets bash-completion from
# /etc/profile.d, whose default completion loads a command's completion from the file named after
# it on the first Tab; the function `complete -p rtrace` then names completes the words. bash
# -i without a terminal says so on stderr (kept in bash.err, shown on a failure).
completion_of() {
  bash -il -c 'loader=$(complete -p -D) && loader=${loader#*-F } && "${loader%% *}" rtrace
               spec=$(complete -p rtrace) || exit 1
               [[ $# -eq 0 ]] && { echo "$spec"; exit 0; }
               function=${spec#*-F } && function=${function%% *}
               COMP_WORDS=("$@") && COMP_CWORD=$(($# - 1)) && COMP_LINE="$*" &&
                 COMP_POINT=${#COMP_LINE}
               "$function" rtrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
               printf "%s\n" "${COMPREPLY[@]}"' completion "$@" 2> "$work/bash.err" ||
    fail "bash -il: completion of $*: $(cat "$work/bash.err")"
}
spec=$(completion_of)
expect_match "$spec" "^complete( -[a-zA-Z]+)* -F [_a-zA-Z0-9]+ rtrace$" "complete -p rtrace"
[[ $(completion_of rtrace rec) == record ]] || fail "completing 'rtrace rec': $(completion_of rtrace rec)"
# The -e values come from the installed recorder's module list: every module but main.
aliases=$(awk 'NR > 1 && !/^\(in / && $1 != "main" { print $1 }' <<< "$modules" | sort)
offered=$(completion_of rtrace record -e '' | sort)
[[ $offered == "$aliases" ]] || fail "completing 'rtrace record -e ': $offered (expected $aliases)"

echo "== smoke test: passed" >&2
