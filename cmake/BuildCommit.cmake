# The git commit the build comes from, for `rtrace --version`: read when CMake configures, and
# again after every commit or checkout (CMake then reconfigures, as the log of HEAD changes). A
# source tree that is not a git checkout (a release tarball) says "unknown". The header is
# generated apart from version.h, which most of the project includes: only the file that prints
# the version is compiled again when the commit changes.
set(RTRACE_BUILD_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=7 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE rtrace_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rtrace_commit_status ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE rtrace_git_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rtrace_git_dir_status ERROR_QUIET)
  if(rtrace_commit_status EQUAL 0 AND NOT rtrace_commit STREQUAL "")
    set(RTRACE_BUILD_COMMIT "${rtrace_commit}")
  endif()
  if(rtrace_git_dir_status EQUAL 0 AND EXISTS "${rtrace_git_dir}/logs/HEAD")
    set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 "${rtrace_git_dir}/logs/HEAD")
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/src/build_commit.h.in
               ${CMAKE_BINARY_DIR}/generated/rtrace/build_commit.h @ONLY)
