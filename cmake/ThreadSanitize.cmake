# RTRACE_TSAN (`make check-tsan`): ThreadSanitizer over the tracer's cross-thread ordering, the
# lock-free event rings, tickets and merge of rtrace_tracer_core, driven by the unit tests that
# run them on several threads at once (record_merge_test) or alone (tracer_core_test), and over
# the resolver (rtrace_symbols), which looks addresses up on several threads, driven by its tests
# (symbols_test; libdw itself is not instrumented: each thread reads the files through its own
# handles, which libdw allows to be used at once). Only these are instrumented: the preloaded
# tracer libraries cannot carry a sanitizer runtime (Sanitize.cmake), and TSan cannot share a
# process with ASan.
set(RTRACE_TSAN_TESTS record_merge_test tracer_core_test symbols_test)
set(RTRACE_TSAN_OPTIONS -fsanitize=thread -fno-omit-frame-pointer)
# GCC warns that TSan does not model atomic_thread_fence: the clock's sequence lock (clock.cpp)
# uses fences, and the tests here never read the clock while another thread recalibrates it.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND RTRACE_TSAN_OPTIONS -Wno-tsan)
endif()

foreach(target rtrace_tracer_core rtrace_symbols ${RTRACE_TSAN_TESTS})
  target_compile_options(${target} PRIVATE ${RTRACE_TSAN_OPTIONS})
  target_link_options(${target} PRIVATE -fsanitize=thread)
endforeach()
# Everything linked with the instrumented resolver needs the TSan runtime.
target_link_options(rtrace_symbols INTERFACE -fsanitize=thread)
