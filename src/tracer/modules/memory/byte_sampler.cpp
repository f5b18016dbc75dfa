#include "tracer/modules/memory/byte_sampler.h"

#include <time.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdlib>

#include "protocol/tracer_environment.h"

namespace rtrace::tracer {

__thread ThreadSampler t_sampler __attribute__((tls_model("initial-exec"))) = {0, 0};

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// 0: no seed given, each process seeds its threads from the clock.
std::uint64_t g_seed = 0;
// Threads in the order of their first sampled allocation: with a fixed seed, the nth thread's
// generator starts the same at every run.
std::atomic<std::uint64_t> g_threads{0};

// splitmix64: spreads a seed over the 64 bits (a state of xorshift must not be zero).
std::uint64_t mix(std::uint64_t value) {
  value += kGolden;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

// splitmix64 over the seed and the thread's order (xorshift's state must not be zero).
std::uint64_t first_state() {
  std::uint64_t base = g_seed;
  if (base == 0) {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    base = static_cast<std::uint64_t>(now.tv_nsec) ^
           (static_cast<std::uint64_t>(now.tv_sec) << 32) ^ static_cast<std::uint64_t>(::getpid());
  }
  const std::uint64_t state = mix(base ^ mix(g_threads.fetch_add(1, std::memory_order_relaxed)));
  return state != 0 ? state : kGolden;
}

// xorshift64*.
std::uint64_t next_random(ThreadSampler& sampler) {
  sampler.state ^= sampler.state >> 12;
  sampler.state ^= sampler.state << 25;
  sampler.state ^= sampler.state >> 27;
  return sampler.state * 0x2545f4914f6cdd1dULL;
}

// An exponential draw of mean `interval`, at least 1 byte.
std::int64_t draw(ThreadSampler& sampler, std::uint64_t interval) {
  // 53 random bits as u in (0, 1]: never 0, whose logarithm is infinite.
  const double u = static_cast<double>((next_random(sampler) >> 11) + 1) * 0x1.0p-53;
  const double bytes = negative_log(u) * static_cast<double>(interval);
  constexpr auto kMost = static_cast<double>(kLargestStep);
  return bytes < 1.0     ? 1
         : bytes > kMost ? static_cast<std::int64_t>(kLargestStep)
                         : static_cast<std::int64_t>(bytes);
}

}  // namespace

void read_sample_seed() {
  const char* text = ::getenv(tracer_environment::kSampleSeedVariable);
  std::uint64_t seed = 0;
  for (; text != nullptr && *text >= '0' && *text <= '9'; ++text) {
    seed = seed * 10 + static_cast<std::uint64_t>(*text - '0');
  }
  g_seed = seed != 0 ? mix(seed) : 0;
}

double negative_log(double u) {
  // u = m * 2^e with m in [1, 2): ln u = e ln 2 + ln m, and ln m = 2 atanh(t) with
  // t = (m - 1) / (m + 1) in [0, 1/3), whose series converges fast (the terms up to t^13 leave
  // an error below 1e-8 of the result, far below the sampling's own noise).
  const auto bits = std::bit_cast<std::uint64_t>(u);
  const auto exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const double mantissa =
      std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  const double t = (mantissa - 1.0) / (mantissa + 1.0);
  const double t2 = t * t;
  double series = 1.0 / 13;
  for (int odd = 11; odd >= 1; odd -= 2) {
    series = series * t2 + 1.0 / odd;
  }
  constexpr double kLn2 = 0.69314718055994530942;
  return -(exponent * kLn2 + 2.0 * t * series);
}

bool sample_at_countdown_end(std::uint64_t interval, std::uint64_t size) {
  ThreadSampler& sampler = t_sampler;
  if (sampler.state == 0) {
    sampler.state = first_state();
    sampler.countdown = draw(sampler, interval);
  }
  sampler.countdown -= static_cast<std::int64_t>(size < kLargestStep ? size : kLargestStep);
  if (sampler.countdown > 0) {
    return false;
  }
  // Memoryless: the bytes after this allocation start a new interval.
  sampler.countdown = draw(sampler, interval);
  return true;
}

}  // namespace rtrace::tracer
