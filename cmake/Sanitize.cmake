# RTRACE_SANITIZE: ASan+UBSan for rtrace's own code, i.e. the libraries, the command-line tools,
# the test programs and the fuzzers' replayers. Two kinds of targets stay uninstrumented,
# because the sanitizer runtime must come first in a process and cannot share it with our
# interposers:
#  * the tracer libraries (src/tracer/), preloaded into other programs;
#  * the programs the tests trace (built by the tests but not linked with GoogleTest), which run
#    with those libraries preloaded.
# -O1 -g1 (after the build type's -O2 -g, so they win): -O1 is the level ASan's documentation
# recommends, and -g1 keeps what a sanitizer's report shows (functions, files and lines) without
# the types and variables. This build exists to run the tests, not to be fast or debugged itself;
# its compilations take half the CPU they take at -O2 -g. The GoogleTest programs keep the -O0
# they have in every build (tests/CMakeLists.txt): at -O1 with ASan, clang took twice the CPU
# for them (27 s against 12 s for the largest), and their own code is set-up and assertions. Programs the tests trace and resolve
# keep the build type's flags (they are not instrumented, see below). `make check-sanitize`
# builds it with GCC; with clang and RTRACE_BUILD_FUZZERS the fuzz targets can share it (Makefile).
set(RTRACE_SANITIZER_OPTIONS -g1 -fsanitize=address,undefined -fno-sanitize-recover=all
                             -fno-omit-frame-pointer)
# With the fuzz targets (RTRACE_BUILD_FUZZERS, clang) the code they run also carries libFuzzer's
# coverage instrumentation (-fsanitize=fuzzer-no-link): the libraries of src/ and the fuzz targets'
# own code (fuzz/). The fuzz targets link the same libraries as the tests, and only they link
# libFuzzer itself (-fsanitize=fuzzer, fuzz/); the tests link as before, the sanitizer runtime
# answering the coverage callbacks. What no fuzz target links (the commands of src/cli, the
# tests) goes without: the instrumentation added a sixth to the CPU of each compilation.
if(RTRACE_BUILD_FUZZERS)
  set(RTRACE_FUZZER_COVERAGE_OPTIONS -fsanitize=fuzzer-no-link)
endif()
# GCC 12's flow analysis under -fsanitize=address reports uninitialized values where there are
# none (std::function inside <regex>: "may be used uninitialized"), and -Werror made the
# sanitizer build stop there. The ordinary build keeps the warning.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND RTRACE_SANITIZER_OPTIONS -Wno-maybe-uninitialized)
endif()

function(rtrace_is_test_program target result)
  get_target_property(libraries ${target} LINK_LIBRARIES)
  set(${result} OFF PARENT_SCOPE)
  if(libraries AND "GTest::gtest_main" IN_LIST libraries)
    set(${result} ON PARENT_SCOPE)
  endif()
endfunction()

function(rtrace_sanitize_target target)
  get_target_property(type ${target} TYPE)
  get_target_property(source_dir ${target} SOURCE_DIR)
  if(source_dir MATCHES "/src/tracer(/|$)")
    return()
  endif()
  set(is_test OFF)
  if(type STREQUAL "EXECUTABLE")
    rtrace_is_test_program(${target} is_test)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    # Ours besides the tests: the commands (also a test's build of rtrace, which links the
    # commands' library), the fuzzers' regression replayers (fuzz/, built by the test suite over
    # the instrumented libraries) and the trace generator the tests run (bench/gen/).
    if(NOT is_test AND NOT source_dir MATCHES "/src/cli$" AND NOT source_dir MATCHES "/fuzz$"
       AND NOT source_dir MATCHES "/bench/gen$"
       AND NOT (libraries AND "rtrace_cli" IN_LIST libraries))
      return()  # a program the tests trace
    endif()
  elseif(NOT type STREQUAL "STATIC_LIBRARY")
    return()
  endif()
  if(NOT is_test)
    target_compile_options(${target} PRIVATE -O1)
  endif()
  target_compile_options(${target} PRIVATE ${RTRACE_SANITIZER_OPTIONS})
  if((source_dir MATCHES "/src/" AND NOT source_dir MATCHES "/src/cli$") OR
     source_dir MATCHES "/fuzz$")
    target_compile_options(${target} PRIVATE ${RTRACE_FUZZER_COVERAGE_OPTIONS})
  endif()
  target_link_options(${target} PRIVATE -fsanitize=address,undefined)
endfunction()

# Every target defined in `directory` and below.
function(rtrace_sanitize_own_code directory)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    rtrace_sanitize_target(${target})
  endforeach()
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    rtrace_sanitize_own_code(${subdirectory})
  endforeach()
endfunction()
