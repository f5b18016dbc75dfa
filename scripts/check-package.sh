#!/usr/bin/env bash
# Checks the Debian packages `make deb` built (in OUT, the first argument, default build-deb/):
#  1. the rtrace package holds every tracer module the build made: `rtrace record -l` of the
#     package's build (OUT/rtrace-VERSION/obj-*, scripts/build-deb.sh) against `dpkg-deb -c`;
#  2. installed on a fresh Debian 12 with their dependencies from Debian, they work from the
#     installed files alone: tests/install/package/smoke-test.sh records a C and a C++ program
#     (-e file:memory, --audit), reports and resolves them, builds and traces a program with
#     `pkg-config --cflags --libs rtrace-context`, reads `man rtrace` and completes in bash.
#
# The throw-away root is a minimal Debian 12 (bookworm) made by mmdebstrap from Debian's archive
# (RTRACE_DEBIAN_MIRROR, default http://deb.debian.org/debian), where apt installs the three
# packages as a user does (`apt install ./rtrace_*.deb`): their dependencies come from the
# archive, so a dependency dpkg-shlibdeps missed fails here. The root holds nothing of the build
# tree, and none of the build dependencies the host has. Chosen over `dpkg -i` on the host (which
# has every library the build needed, and is shared) and over a copy of the host's root (the same
# libraries again); it needs the archive: the script stops with a clear message when it cannot
# reach it. The compiler, pkg-config, man-db and bash-completion are added to the root for the
# smoke test itself. The packages downloaded are kept in RTRACE_APT_CACHE (default
# ~/.cache/rtrace/apt-archives) so that the next run downloads only what changed. mmdebstrap runs
# as root (mounts, chroot), or unprivileged through user namespaces where those are allowed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath "${1:-build-deb}")
mirror=${RTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${RTRACE_APT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtrace/apt-archives}
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)

fail() {
  echo "check-package: $*" >&2
  exit 1
}

packages=()
for package in rtrace librtrace-context0 librtrace-context-dev; do
  deb=$out/${package}_${version}_$arch.deb
  [[ -f $deb ]] || fail "$deb: no such package (make deb builds it)"
  packages+=("$deb")
done

echo "== check-package: the package's modules are the build's" >&2
build_rtrace=$(echo "$out/rtrace-$version"/obj-*/bin/rtrace)
[[ -x $build_rtrace ]] || fail "$build_rtrace: the package's build is not there (make deb)"
built=$(env -u RTRACE_LIBDIR "$build_rtrace" record -l | awk 'NR > 1 && !/^\(in / { print $2 }' |
  sort)
[[ -n $built ]] || fail "$build_rtrace record -l lists no module"
packaged=$(dpkg-deb -c "${packages[0]}" | awk '{ print $6 }' |
  sed -n 's|^\./usr/lib/[^/]*/rtrace/\(librtrace-[^/]*\.so\)$|\1|p' | sort)
missing=$(comm -23 <(echo "$built") <(echo "$packaged"))
extra=$(comm -13 <(echo "$built") <(echo "$packaged"))
[[ -z $missing ]] || fail "${packages[0]} lacks the modules: ${missing//$'\n'/ }"
[[ -z $extra ]] || fail "${packages[0]} has modules the build does not list: ${extra//$'\n'/ }"

echo "== check-package: a fresh Debian 12 from $mirror" >&2
# The archive, before building a root out of it: an unreachable archive is said as such.
curl -fsS -o /dev/null --max-time 30 "$mirror/dists/bookworm/Release" ||
  fail "cannot reach Debian's archive at $mirror (RTRACE_DEBIAN_MIRROR names another)"

mkdir -p "$cache"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/packages" "$scratch/smoke"
cp "${packages[@]}" "$scratch/packages/"
cp "$root"/tests/install/package/* "$root/examples/leaky.c" "$scratch/smoke/"
# The root's package cache is the persistent one (essential packages included: mmdebstrap
# would otherwise remove their files after the first stage); it is saved before the smoke test
# so that a failing test still leaves it filled. The hooks' "$1" is the root (mmdebstrap's).
# shellcheck disable=SC2016
mmdebstrap --variant=minbase --skip=essential/unlink \
  --include=gcc,g++,libc6-dev,pkg-config,man-db,bash-completion,binutils,bsdextrautils \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives' \
  --setup-hook="sync-in $cache /var/cache/apt/archives" \
  --customize-hook="copy-in $scratch/packages $scratch/smoke /root" \
  --customize-hook='chroot "$1" apt-get install -y --no-install-recommends /root/packages/*.deb' \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  --customize-hook='chroot "$1" bash /root/smoke/smoke-test.sh /root/smoke' \
  bookworm "$scratch/root" "$mirror"
echo "== check-package: the packages work on a fresh Debian 12" >&2
