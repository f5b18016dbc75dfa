#!/usr/bin/env bash
# Builds the Debian packages (debian/) the way Debian builds them, `dpkg-buildpackage -us -uc -b`,
# into OUT (the first argument, default build-deb/), then runs lintian on them: any error fails
# the build (the warnings it may give are justified in debian/*.lintian-overrides).
#
# The source tree stays clean: dpkg-buildpackage writes its build folder and the packages' trees
# into the source tree and the packages beside it, so the build runs on a copy of the tree in
# OUT/rtrace-VERSION/ (the files git knows, with their uncommitted changes, and the new files it
# does not ignore; without git, everything but the build folders), and the packages land in OUT.
# The copy stays after the build: scripts/check-package.sh compares the modules its build made
# with the package's.
#
# With ccache installed, the compilations go through scripts/ccache-launcher.sh (debian/rules,
# RTRACE_CCACHE) and the cache is the user's: debhelper runs the build with HOME pointing to an
# empty folder, so the cache folder is passed explicitly (CCACHE_DIR).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-build-deb}")
jobs=${JOBS:-$(nproc)}
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
copy="$out/rtrace-$version"

mkdir -p "$out"
rm -rf "$copy"
rm -f "$out"/*_"$version"_*.deb "$out"/rtrace_"$version"_*.buildinfo \
  "$out"/rtrace_"$version"_*.changes
mkdir "$copy"
if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  # Files git tracks but that are deleted in the work tree are left out.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard --deduplicate |
    while IFS= read -r -d '' file; do
      [[ -e "$file" ]] && printf '%s\0' "$file"
    done | tar --null -T - -cf -) | tar -xf - -C "$copy"
else
  tar -C "$root" --exclude='./build*' --exclude='./.git' -cf - . | tar -xf - -C "$copy"
fi

if command -v ccache > /dev/null; then
  export RTRACE_CCACHE=1
  CCACHE_DIR=${CCACHE_DIR:-$(ccache --get-config cache_dir)}
  export CCACHE_DIR
fi
(cd "$copy" && dpkg-buildpackage -us -uc -b -j"$jobs")

changes=$(ls "$out"/rtrace_"$version"_*.changes)
lintian --fail-on error --info "$changes"
echo "rtrace: packages in $out:" >&2
ls "$out"/*_"$version"_*.deb >&2
