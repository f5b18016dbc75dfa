# RTRACE_TSAN (`make check-tsan`): ThreadSanitizer over the code that runs on several threads:
# - the tracer's cross-thread ordering, the lock-free event rings, tickets and merge of
#   rtrace_tracer_core, driven by the unit tests that run them on several threads at once
#   (record_merge_test) or alone (tracer_core_test);
# - the binary format's leaks scan (rtrace_leaks_scan, with its batch_worker.h, and the model it
#   hashes with), whose live table is updated on a worker thread, driven on generated
#   traces of hundreds of batches and the fixtures (leaks_scan_test);
# - the resolver (rtrace_symbols), which looks addresses up on several threads, driven by its
#   tests (symbols_test; libdw itself is not instrumented: each thread reads the files through its
#   own handles, which libdw allows to be used at once).
# Only these are instrumented (the reader and the generator the tests also use are not): the
# preloaded tracer libraries cannot carry a sanitizer runtime (Sanitize.cmake), and TSan cannot
# share a process with ASan. The Makefile builds these tests alone and runs them.
set(RTRACE_TSAN_TESTS record_merge_test tracer_core_test leaks_scan_test symbols_test)
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
# Whatever links these gets the runtime their instrumented code calls.
foreach(target rtrace_symbols rtrace_leaks_scan rtrace_model)
  target_compile_options(${target} PRIVATE ${RTRACE_TSAN_OPTIONS})
  target_link_options(${target} INTERFACE -fsanitize=thread)
endforeach()
