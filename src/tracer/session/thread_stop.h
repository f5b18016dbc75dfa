// Stops every other thread of the process for the leak check (leak_check.h), as LeakSanitizer
// does before it scans: each thread gets a signal whose handler saves its registers and waits
// until the check resumes them. Raw system calls and static memory only.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// The signal that stops a thread (the last real-time signal, the one programs use least). A
// handler the program had for it is kept and called when no check is under way.
int thread_stop_signal();

// What a stopped thread left: its stack pointer, its thread pointer (the static TLS is beside
// it) and its general registers as words.
struct StoppedThread {
  pid_t tid = 0;
  bool stopped = false;  // false: it did not stop in time, nothing of it is known
  std::uintptr_t stack_pointer = 0;
  std::uintptr_t thread_pointer = 0;
  static constexpr std::size_t kRegisterWords = 32;
  std::uintptr_t registers[kRegisterWords] = {};
  std::size_t register_count = 0;
};

struct StopResult {
  const StoppedThread* threads = nullptr;  // those asked to stop (see `stopped`)
  std::size_t count = 0;
  std::size_t missed = 0;  // threads that did not stop in time (the signal blocked, say)
};

// Stops every thread but the caller and those named `rtrace:*` (the tracer's own), waiting up to
// `patience_ms` for them. Then resume_threads(), once.
StopResult stop_other_threads(long patience_ms);
void resume_threads();

// True when the calling thread is one of the tracer's own (named `rtrace:*`).
bool tracer_thread(pid_t tid);

}  // namespace rtrace::tracer
