#!/bin/sh
# The compiler launcher of the build folders the Makefile and .ci/run configure when ccache is
# installed (CMAKE_<LANG>_COMPILER_LAUNCHER): ccache with the settings that let a fresh clone in
# another folder reuse the compilations of the last one, kept with the build folder so that
# `cmake --build` by hand gets them too. Settings already in the environment win.
#  * CCACHE_BASEDIR, the source root: paths under it are hashed relative to the build folder.
#  * CCACHE_NOHASHDIR: with -g the build folder is not hashed either (debug information may then
#    name another clone's folder; the test programs whose paths the tests check are built without
#    the cache, cmake/CompilerCache.cmake).
#  * CCACHE_SLOPPINESS: what the test programs' precompiled header needs to be cached (ccache's
#    manual, "Precompiled headers"), and no fallback to preprocessing for headers just written.
# The cache itself is ccache's own (~/.cache/ccache, or CCACHE_DIR; its size limit, 5 GB by
# default, holds what .ci/run builds several times over).
root=$(cd "$(dirname "$0")/.." && pwd)
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
exec ccache "$@"
