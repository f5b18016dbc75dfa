# RTRACE_TSAN (`make check-tsan`): ThreadSanitizer over the tracer's cross-thread ordering, the
# lock-free event rings, tickets and merge of rtrace_tracer_core, driven by the unit tests that
# run them on several threads at once (record_merge_test) or alone (tracer_core_test). Only these
# are instrumented: the preloaded tracer libraries cannot carry a sanitizer runtime
# (Sanitize.cmake), and TSan cannot share a process with ASan.
set(RTRACE_TSAN_TESTS record_merge_test tracer_core_test)
set(RTRACE_TSAN_OPTIONS -fsanitize=thread -fno-omit-frame-pointer)
# GCC warns that TSan does not model atomic_thread_fence: the clock's sequence lock (clock.cpp)
# uses fences, and the tests here never read the clock while another thread recalibrates it.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND RTRACE_TSAN_OPTIONS -Wno-tsan)
endif()

foreach(target rtrace_tracer_core ${RTRACE_TSAN_TESTS})
  target_compile_options(${target} PRIVATE ${RTRACE_TSAN_OPTIONS})
  target_link_options(${target} PRIVATE -fsanitize=thread)
endforeach()
