// The lock a module holds while it looks at the kernel's state of a resource, changes it and
// updates its own tables (FixedTable), so that concurrent threads see each other's calls whole:
// e.g. exactly one of the threads detaching a removed segment sees the last attachment go.
//
// Taken only while the re-entrancy guard is held: a signal handler interrupting the holder finds
// the guard set and calls the real functions without touching the lock. Across fork the lock is
// taken before and released after, in both processes (pthread_atfork), so that the child never
// inherits it held by a thread that does not exist there.
#pragma once

#include <pthread.h>

namespace rtrace::tracer {

class ModuleLock {
 public:
  constexpr ModuleLock() = default;
  ModuleLock(const ModuleLock&) = delete;
  ModuleLock& operator=(const ModuleLock&) = delete;

  void lock() { pthread_mutex_lock(&mutex_); }
  void unlock() { pthread_mutex_unlock(&mutex_); }

 private:
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
};

class LockScope {
 public:
  explicit LockScope(ModuleLock& lock) : lock_(lock) { lock_.lock(); }
  LockScope(const LockScope&) = delete;
  LockScope& operator=(const LockScope&) = delete;
  ~LockScope() { lock_.unlock(); }

 private:
  ModuleLock& lock_;
};

// Registers the fork handlers for `lock` (a module's one lock; call once, from its constructor).
template <ModuleLock& lock>
void keep_lock_across_fork() {
  pthread_atfork([] { lock.lock(); }, [] { lock.unlock(); }, [] { lock.unlock(); });
}

}  // namespace rtrace::tracer
