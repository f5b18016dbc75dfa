#include "io/temporary_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace rtrace {
namespace {

// The handler may only call async-signal-safe functions and read lock-free data, so the paths
// live in fixed slots. A slot is Free, being Written by register, or Armed (readable by the
// handler). More simultaneous temporaries than slots are possible but stay unregistered.
enum SlotState : int { kFree, kWritten, kArmed };

struct Slot {
  std::atomic<int> state{kFree};
  std::array<char, PATH_MAX> path{};
};

constexpr std::size_t kSlots = 16;
std::array<Slot, kSlots> slots;

constexpr std::array<int, 3> kFatalSignals{SIGINT, SIGTERM, SIGHUP};

void remove_temporaries_and_die(int signal_number) {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) == kArmed) {
      ::unlink(slot.path.data());
    }
  }
  // Die of the same signal: the default action, raised again once this handler returns.
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// Installs the handler for each fatal signal still at its default action. A signal somebody
// ignores or handles (the recorder forwards SIGTERM to the traced program, for instance) is theirs.
void install_handler_once() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (const int signal_number : kFatalSignals) {
      struct sigaction current {};
      if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
          (current.sa_flags & SA_SIGINFO) != 0) {
        continue;
      }
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_die;
      sigemptyset(&action.sa_mask);
      for (const int other : kFatalSignals) {
        sigaddset(&action.sa_mask, other);
      }
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

void arm(const std::string& path) {
  if (path.size() >= PATH_MAX) {
    return;
  }
  for (Slot& slot : slots) {
    int expected = kFree;
    if (slot.state.compare_exchange_strong(expected, kWritten, std::memory_order_acq_rel)) {
      std::memcpy(slot.path.data(), path.c_str(), path.size() + 1);
      slot.state.store(kArmed, std::memory_order_release);
      return;
    }
  }
}

// Blocks the fatal signals for its lifetime (in this thread).
class FatalSignalsBlocked {
 public:
  FatalSignalsBlocked() {
    sigset_t blocked;
    sigemptyset(&blocked);
    for (const int signal_number : kFatalSignals) {
      sigaddset(&blocked, signal_number);
    }
    ::pthread_sigmask(SIG_BLOCK, &blocked, &previous_);
  }
  ~FatalSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  FatalSignalsBlocked(const FatalSignalsBlocked&) = delete;
  FatalSignalsBlocked& operator=(const FatalSignalsBlocked&) = delete;

 private:
  sigset_t previous_{};
};

}  // namespace

int create_registered_temporary(std::string& pattern) {
  install_handler_once();
  const FatalSignalsBlocked blocked;
  const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd >= 0) {
    arm(pattern);
  }
  return fd;
}

void unregister_temporary(const std::string& path) {
  for (Slot& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) == kArmed &&
        std::strcmp(slot.path.data(), path.c_str()) == 0) {
      slot.state.store(kFree, std::memory_order_release);
      return;
    }
  }
}

}  // namespace rtrace
