// What a new image needs to load the tracer again, put back into the environment an exec passes
// when the program cleared or replaced it (`env -i prog`, a shell's `LD_PRELOAD=x.so prog`,
// clearenv()): the recorder's variables (protocol/tracer_environment.h) and the tracer's
// libraries in LD_PRELOAD (and in LD_AUDIT, with the audit module), as the recorder set them for
// the first image. Without them the new image would run untraced, and nothing would say so.
//
// No allocation through the program's allocator: the new environment is built in the caller's
// buffer (on its stack: a vfork child shares the parent's memory, so what it maps would stay in
// the parent after the exec), or in an anonymous mapping when it does not fit.
#pragma once

#include <cstddef>

namespace rtrace::tracer {

// At the session's start, from the environment the recorder gave (after the root pid is
// claimed): copies what an exec must keep.
void exec_environment_capture();

// The environment an exec passes, as it will be given to the real exec.
class ExecEnvironment {
 public:
  // `envp` itself when it keeps everything the tracer needs, else a copy with it put back.
  explicit ExecEnvironment(char* const* envp);
  ~ExecEnvironment();
  ExecEnvironment(const ExecEnvironment&) = delete;
  ExecEnvironment& operator=(const ExecEnvironment&) = delete;

  char* const* get() const { return envp_; }

 private:
  static constexpr std::size_t kInlineBytes = 16 * 1024;
  char* const* envp_;
  void* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
  alignas(char*) char inline_[kInlineBytes];
};

// Whether `path` runs in the dynamic linker's secure mode for this process (set-user-ID or
// set-group-ID to another user or group): it preloads no library named by a path there, so the
// new image cannot be traced.
bool exec_drops_preload(const char* path);

}  // namespace rtrace::tracer
