#include "tracer/core/clock.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <atomic>
#include <cstring>

namespace rtrace::tracer {
namespace {

// The calibration, under a sequence lock (odd while the control thread rewrites it):
// nanoseconds = base_ns + ((tsc - base_tsc) * scale >> 32).
std::atomic<std::uint64_t> g_sequence{0};
std::atomic<std::uint64_t> g_base_tsc{0};
std::atomic<std::uint64_t> g_base_ns{0};
std::atomic<std::uint64_t> g_scale{0};

std::atomic<std::uint32_t> g_tick_ms{0};  // 0: stale
bool g_use_tsc = false;
std::uint64_t g_anchor_tsc = 0;
std::uint64_t g_anchor_ns = 0;

std::uint64_t clock_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000000000 +
         static_cast<std::uint64_t>(now.tv_nsec);
}

bool kernel_clock_is_tsc() {
  const int fd =
      ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
  if (fd < 0) {
    return false;
  }
  char name[16] = {};
  const ssize_t got = ::read(fd, name, sizeof name - 1);
  ::close(fd);
  return got >= 3 && std::memcmp(name, "tsc", 3) == 0 && (got == 3 || name[3] == '\n');
}

}  // namespace

std::uint64_t monotonic_nanoseconds() {
  return clock_ns();
}

void init_clock() {
  g_use_tsc = kernel_clock_is_tsc();
  g_anchor_tsc = __rdtsc();
  g_anchor_ns = clock_ns();
}

void recalibrate_clock() {
  if (!g_use_tsc) {
    return;
  }
  const std::uint64_t tsc = __rdtsc();
  const std::uint64_t ns = clock_ns();
  const std::uint64_t ticks = tsc - g_anchor_tsc;
  const std::uint64_t elapsed_ns = ns - g_anchor_ns;
  if (ticks < 1000000 || elapsed_ns == 0) {
    return;  // too short to measure the TSC's rate well
  }
  // Nanoseconds per tick as a 32.32 fixed-point number. Computed in double (its 53 bits hold
  // the about 32 significant bits of the scale exactly enough): a 128-bit division would be a
  // call into libgcc_s, a library the tracer must not bring into the traced process.
  const auto scale = static_cast<std::uint64_t>(static_cast<double>(elapsed_ns) * 4294967296.0 /
                                                static_cast<double>(ticks));
  const std::uint64_t sequence = g_sequence.load(std::memory_order_relaxed);
  g_sequence.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  g_base_tsc.store(tsc, std::memory_order_relaxed);
  g_base_ns.store(ns, std::memory_order_relaxed);
  g_scale.store(scale, std::memory_order_relaxed);
  g_sequence.store(sequence + 2, std::memory_order_release);
  if (elapsed_ns > 1000000000) {
    // Measure the rate over the last second only, so that it follows the kernel's adjustments.
    g_anchor_tsc = tsc;
    g_anchor_ns = ns;
  }
}

namespace {

std::uint32_t read_clock_ms() {
  for (;;) {
    const std::uint64_t sequence = g_sequence.load(std::memory_order_acquire);
    if (sequence == 0) {
      return static_cast<std::uint32_t>(clock_ns() / 1000000);
    }
    if ((sequence & 1) != 0) {
      continue;
    }
    const std::uint64_t base_tsc = g_base_tsc.load(std::memory_order_relaxed);
    const std::uint64_t base_ns = g_base_ns.load(std::memory_order_relaxed);
    const std::uint64_t scale = g_scale.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g_sequence.load(std::memory_order_relaxed) != sequence) {
      continue;
    }
    const std::uint64_t ticks = __rdtsc() - base_tsc;
    const auto extra =
        static_cast<std::uint64_t>((static_cast<unsigned __int128>(ticks) * scale) >> 32);
    return static_cast<std::uint32_t>((base_ns + extra) / 1000000);
  }
}

}  // namespace

void publish_tick(bool busy) {
  // Stored plus one, so that 0 can mean stale.
  g_tick_ms.store(busy ? read_clock_ms() + 1 : 0, std::memory_order_relaxed);
}

std::uint32_t monotonic_milliseconds() {
  const std::uint32_t tick = g_tick_ms.load(std::memory_order_relaxed);
  return tick != 0 ? tick - 1 : read_clock_ms();
}

}  // namespace rtrace::tracer
