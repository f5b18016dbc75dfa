#!/usr/bin/env bash
# Installs the Debian packages rtrace needs to build and test (with --bench: also to run the
# benchmarks; with --fuzz: to build the fuzzers; with --deb: to build the Debian packages, check
# them with lintian and smoke-test them in a fresh Debian root), when they are missing. Runs apt-get only if
# something is missing; needs root (or sudo) then.
set -euo pipefail

packages=(
  g++ make cmake ninja-build pkg-config
  libfmt-dev libcli11-dev zlib1g-dev libzstd-dev libpugixml-dev libsnappy-dev libbrotli-dev
  nlohmann-json3-dev
  libdw-dev libelf-dev libunwind-dev
  # the compiler cache of every build folder (Makefile, scripts/ccache-launcher.sh)
  ccache
  # keyed hashes of trace content (XXH3 with a random seed)
  libxxhash-dev
  libgtest-dev libgmock-dev
  elfutils binutils gzip zstd
  # tests: libc's separate debug file (resolver); real third-party programs to trace
  libc6-dbg python3 git
  # tests of rtrace export: the consumers that open its files (dot, ms_print, and
  # massif-visualizer on a virtual X display, whose screen xwd dumps)
  graphviz valgrind massif-visualizer xvfb xauth x11-apps
  # rtrace export pprof: protoc and the protobuf runtime; its tests read the profiles with
  # `go tool pprof`
  libprotobuf-dev protobuf-compiler golang-go
  # tests of rtrace report --html and the SVG flame graph: a headless browser opens them, and
  # the page tests drive it through the DevTools protocol from Node.js (install_browser_driver)
  chromium
  # tests of the gobject tracing module: a real GLib program (the module does not link GLib)
  libglib2.0-dev
  # tests of the qobject tracing module: a real Qt 5 program (the module does not link Qt)
  qtbase5-dev
  # tests of the other allocators' entry points: programs linked with jemalloc, tcmalloc
  # (gperftools) and mimalloc
  libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev
  # tests of the man pages: man renders each one and must print no warning
  man-db groff-base
)
for option in "$@"; do
  case "$option" in
    # what the benchmarks compare with: llvm-symbolizer, heaptrack; bc for the scripts
    --bench) packages+=(llvm heaptrack bc time) ;;
    # make fuzz: clang with libFuzzer and the sanitizer runtimes
    --fuzz) packages+=(clang-14 libfuzzer-14-dev libclang-rt-14-dev llvm-14) ;;
    # make deb and scripts/check-package.sh: Debian's packaging tools, lintian, and mmdebstrap
    # (with curl) for the throw-away root
    --deb) packages+=(debhelper dpkg-dev fakeroot lintian mmdebstrap curl) ;;
    *) echo "install-deps.sh: unknown option $option" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  # A package whose triggers another apt-get run has yet to process (man-db's, while packages
  # with man pages are being installed) is installed all the same.
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" =~ ^install\ ok\ (installed|triggers-pending|triggers-awaited)$ ]] || missing+=("$p")
done
# Node.js and npm for the page tests: a machine that has Node.js from elsewhere (with its own
# npm) keeps it; Debian's packages otherwise.
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)

# The page tests' puppeteer-core (tests/browser/package.json, versions pinned by its lock file),
# installed into tests/browser/node_modules as the lock file says, again only when the lock file
# changed. It drives Debian's chromium: no browser is downloaded.
install_browser_driver() {
  local dir stamp
  dir="$(cd "$(dirname "$0")/.." && pwd)/tests/browser"
  stamp="$dir/node_modules/.rtrace-package-lock.json"
  cmp -s "$dir/package-lock.json" "$stamp" && return 0
  echo "rtrace: installing the page tests' Node.js packages into $dir/node_modules" >&2
  npm ci --prefix "$dir" --no-audit --no-fund --ignore-scripts --loglevel=error > /dev/null
  cp "$dir/package-lock.json" "$stamp"
}

if [[ ${#missing[@]} -eq 0 ]]; then
  install_browser_driver
  exit 0
fi

echo "rtrace: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "rtrace: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
install_browser_driver
