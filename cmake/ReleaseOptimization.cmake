# RTRACE_RELEASE_OPTIMIZATION (CI's check build, .ci/run): what ships (every target under src/ and
# examples/, as `make release` builds it) compiled at the Release build's -O3 whatever the build
# type: after the build type's -O2, so that it wins, and before the target's own options, so that
# a target's own level (the example's -O0) wins as in a Release build. The tests and the programs
# they trace keep the build type's flags. GCC's flow-sensitive warnings (-Warray-bounds, -Wstringop-*,
# -Wmaybe-uninitialized, ...) depend on the optimization level and -Werror is always on, so the
# check build then fails where a Release build would, and CI needs no Release build of its own.
# src/ also goes without debug information, as in a Release build (-g0 after the build type's -g):
# it changes neither GCC's warnings nor the code, and writing it was a quarter of the CPU that
# compiling src/ at -O3 took (e.g. 10.5 s against 7.6 s for a report section). The example keeps
# its -g, which the demo's report needs. -DNDEBUG changes nothing here (no assert() in src/).
option(RTRACE_RELEASE_OPTIMIZATION "Compile what ships at -O3, as the Release build does" OFF)

function(rtrace_release_optimize_directory directory)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      target_compile_options(${target} BEFORE PRIVATE -O3 ${ARGN})
    endif()
  endforeach()
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    rtrace_release_optimize_directory(${subdirectory} ${ARGN})
  endforeach()
endfunction()

if(RTRACE_RELEASE_OPTIMIZATION)
  if(RTRACE_SANITIZE OR RTRACE_TSAN)
    message(FATAL_ERROR "RTRACE_RELEASE_OPTIMIZATION is for the ordinary build's warnings")
  endif()
  rtrace_release_optimize_directory(${PROJECT_SOURCE_DIR}/src -g0)
  rtrace_release_optimize_directory(${PROJECT_SOURCE_DIR}/examples)
endif()
