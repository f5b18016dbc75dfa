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
# packages as a user does (`apt install ./rtrace_*.deb`). The root holds nothing of the build
# tree, and none of the build dependencies the host has. Chosen over `dpkg -i` on the host (which
# has every library the build needed, and is shared) and over a copy of the host's root (the same
# libraries again).
#
# The root is made in two stages, so that a second run downloads nothing:
#  * the base: minbase, the tools the smoke test needs (the compilers, pkg-config, man-db,
#    bash-completion) and the packages the three packages' Depends name (dpkg-shlibdeps computed
#    them), installed by apt from the archive. It is kept as a tarball in RTRACE_ROOT_CACHE
#    (default ~/.cache/rtrace/roots), named after a hash of the suite, the mirror and that
#    package list: the same packages give the same tarball, other Depends a new one. A library
#    the packages need but do not name is not in the base, and the smoke test fails on it.
#  * the check: a new root unpacked from the base (mmdebstrap's custom variant), where apt
#    installs the three .deb files and the smoke test runs; the root is thrown away after.
# Only making the base needs the archive: the script stops with a clear message when it cannot
# reach it. mmdebstrap runs as root (mounts, chroot), or unprivileged through user namespaces
# where those are allowed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath "${1:-build-deb}")
mirror=${RTRACE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root_cache=${RTRACE_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rtrace/roots}
suite=bookworm
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
own_packages=(rtrace librtrace-context0 librtrace-context-dev)
smoke_tools=(gcc g++ libc6-dev pkg-config man-db bash-completion binutils bsdextrautils)

fail() {
  echo "check-package: $*" >&2
  exit 1
}

packages=()
for package in "${own_packages[@]}"; do
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

# The packages the three packages depend on, by name (the first of alternatives; the versions
# are the archive's), without the three themselves.
dependencies() {
  local deb
  for deb in "${packages[@]}"; do
    dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/[[:space:]]//g'
  done | grep -v -x -F "${own_packages[@]/#/-e}" | grep -v '^$' | sort -u
}
mapfile -t base_packages < <({ printf '%s\n' "${smoke_tools[@]}"; dependencies; } | sort -u)
key=$(printf '%s\n' "$suite" "$mirror" "${base_packages[@]}" | sha256sum | cut -c1-16)
base=$root_cache/$suite-$arch-$key.tar

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [[ -f $base ]]; then
  echo "== check-package: the base root $base (cached)" >&2
else
  echo "== check-package: a base root of Debian 12 from $mirror, with: ${base_packages[*]}" >&2
  # The archive, before building a root out of it: an unreachable archive is said as such.
  curl -fsS -o /dev/null --max-time 30 "$mirror/dists/$suite/Release" ||
    fail "cannot reach Debian's archive at $mirror (RTRACE_DEBIAN_MIRROR names another)"
  mkdir -p "$root_cache"
  # Written beside its final name and renamed once complete: an interrupted run leaves no
  # tarball that a later run would take for a base. /dev is mmdebstrap's to make in each root.
  partial=$(mktemp "$root_cache/.partial-XXXXXX.tar")
  trap 'rm -rf "$scratch" "$partial"' EXIT
  mmdebstrap --variant=minbase --include="$(IFS=,; echo "${base_packages[*]}")" \
    "$suite" - "$mirror" | mmtarfilter --path-exclude='/dev/*' > "$partial"
  mv "$partial" "$base"
fi

echo "== check-package: the packages installed in a fresh root, the smoke test" >&2
mkdir "$scratch/packages" "$scratch/smoke"
cp "${packages[@]}" "$scratch/packages/"
cp "$root"/tests/install/package/* "$root/examples/leaky.c" "$scratch/smoke/"
# The hooks' "$1" is the root (mmdebstrap's); the root itself is a temporary folder of
# mmdebstrap's, removed at the end (the output /dev/null).
# shellcheck disable=SC2016
mmdebstrap --variant=custom --skip=update \
  --setup-hook="tar-in $base /" \
  --customize-hook="copy-in $scratch/packages $scratch/smoke /root" \
  --customize-hook='chroot "$1" sh -c "apt-get install -y --no-install-recommends /root/packages/*.deb"' \
  --customize-hook='chroot "$1" bash /root/smoke/smoke-test.sh /root/smoke' \
  "$suite" /dev/null
echo "== check-package: the packages work on a fresh Debian 12" >&2
