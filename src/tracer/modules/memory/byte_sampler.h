// The memory module's sampling (the option sample-bytes=N): which allocations a sampled trace
// records. Each thread walks its allocated bytes as a Poisson process of mean interval N bytes,
// as tcmalloc, jemalloc and heapprofd do: a countdown drawn from an exponential distribution of
// mean N is lowered by each allocation's size, and the allocation that takes it to zero or below
// is recorded, after which a new countdown is drawn. The process being memoryless, an allocation
// of `size` bytes is recorded with the probability 1 - exp(-size / N) whatever came before it,
// which is what the readers' estimates divide by (model/sampling.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tracer/api/tracer_api.h"

namespace rtrace::tracer {

// The sampling interval, 0 when every allocation is recorded.
inline std::uint64_t sample_interval() {
  return __atomic_load_n(&rtrace_sample_bytes, __ATOMIC_RELAXED);
}

// Reads the seed variable (tracer_environment.h) once, at the module's registration: getenv is
// not for the allocation path.
void read_sample_seed();

// A thread's sampler: its generator's state (0 until its first allocation) and the bytes left
// until its next sample. Plain data in __thread storage, so that the allocation path reads it
// without a call (a C++ thread_local of another unit is reached through a function).
struct ThreadSampler {
  std::uint64_t state;
  std::int64_t countdown;
};
extern __thread ThreadSampler t_sampler __attribute__((tls_model("initial-exec")));

// Sizes beyond this count as this (the countdown is signed).
inline constexpr std::uint64_t kLargestStep = std::uint64_t{1} << 62;

// sample_allocation's way when the countdown runs out, or before the thread's first draw.
bool sample_at_countdown_end(std::uint64_t interval, std::uint64_t size);

// Whether this thread's allocation of `size` bytes is recorded, with `interval` the mean
// (non-zero). Per-thread state only: no lock, no allocation; inline, as it runs on every
// allocation, and most allocations only lower the countdown.
inline bool sample_allocation(std::uint64_t interval, std::uint64_t size) {
  ThreadSampler& sampler = t_sampler;
  const auto step = static_cast<std::int64_t>(size < kLargestStep ? size : kLargestStep);
  if (sampler.countdown > step) {
    sampler.countdown -= step;
    return false;
  }
  return sample_at_countdown_end(interval, size);
}

// -ln(u) for u in (0, 1]: the exponential draw, without libm (the tracer does not link it).
double negative_log(double u);

}  // namespace rtrace::tracer
