# Test programs whose expected outputs record what GCC makes of them (which functions it inlines,
# keeps or drops, its line tables: the resolver's and the reports' tests name functions and
# lines) are compiled by GCC whatever compiles the project, so that a clang build (the sanitizer
# build is clang's, Makefile) checks the same programs. They are not instrumented: the tests read
# and trace them, they do not run them under a sanitizer.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(RTRACE_TEST_PROGRAM_CC ${CMAKE_C_COMPILER})
  set(RTRACE_TEST_PROGRAM_CXX ${CMAKE_CXX_COMPILER})
else()
  find_program(RTRACE_TEST_PROGRAM_CC NAMES gcc REQUIRED)
  find_program(RTRACE_TEST_PROGRAM_CXX NAMES g++ REQUIRED)
endif()

# rtrace_gcc_program(name SOURCES ... [OPTIONS ...] [INCLUDES dir...] [OUTPUT file]
#                    [NO_PIE | SHARED] [DEPENDS file...])
# Builds target `name`: the file OUTPUT (default: `name`) in the current binary folder's
# programs/, from SOURCES with GCC (its C++ compiler when a source is C++), position-independent
# (-fPIE -pie) unless NO_PIE or SHARED, linked with -ldl. Sets <name>_path to the file.
function(rtrace_gcc_program name)
  cmake_parse_arguments(ARG "NO_PIE;SHARED" "OUTPUT" "SOURCES;OPTIONS;INCLUDES;DEPENDS" ${ARGN})
  set(compiler ${RTRACE_TEST_PROGRAM_CC})
  if(ARG_SOURCES MATCHES "\\.cpp(;|$)")
    set(compiler ${RTRACE_TEST_PROGRAM_CXX})
  endif()
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT ${name})
  endif()
  if(ARG_SHARED)
    set(layout -fPIC -shared -Wl,-soname,${ARG_OUTPUT})
  elseif(ARG_NO_PIE)
    set(layout -fno-pie -no-pie)
  else()
    set(layout -fPIE -pie)
  endif()
  list(TRANSFORM ARG_INCLUDES PREPEND -I)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/programs/${ARG_OUTPUT})
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/programs
    COMMAND ${compiler} -Wall -Wextra -Werror -g ${ARG_OPTIONS} ${layout} ${ARG_INCLUDES}
            -o ${output} ${ARG_SOURCES} -ldl
    DEPENDS ${ARG_SOURCES} ${ARG_DEPENDS}
    VERBATIM)
  add_custom_target(${name} DEPENDS ${output})
  set(${name}_path ${output} PARENT_SCOPE)
endfunction()
