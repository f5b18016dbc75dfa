# With a compiler cache as the launcher (the Makefile and .ci/run configure one when ccache is
# installed, scripts/ccache-launcher.sh), a result may come from another folder's compilation of
# the same file: the launcher lets ccache ignore the build folder, so that CI's fresh clones share
# one cache. Debug information then names the other folder. That only matters for the programs
# the tests trace and resolve, whose source paths the tests check (AddressResolver
# .FullPathOfSourceFiles): every target under tests/ that is not a GoogleTest program (small C
# and C++ programs and libraries) is compiled without the cache.
function(rtrace_uncached_test_programs directory)
  get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    if(type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$"
       AND NOT (libraries AND "GTest::gtest_main" IN_LIST libraries))
      set_target_properties(${target} PROPERTIES C_COMPILER_LAUNCHER "" CXX_COMPILER_LAUNCHER "")
    endif()
  endforeach()
  get_property(subdirectories DIRECTORY ${directory} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    rtrace_uncached_test_programs(${subdirectory})
  endforeach()
endfunction()

if(RTRACE_BUILD_TESTS AND (CMAKE_C_COMPILER_LAUNCHER OR CMAKE_CXX_COMPILER_LAUNCHER))
  rtrace_uncached_test_programs(${PROJECT_SOURCE_DIR}/tests)
endif()
