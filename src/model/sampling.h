// Sampled traces (rtrace record --sample-bytes N): what a trace says of its sampling, and the
// estimates every report and export makes of it.
//
// The tracer recorded each allocation of `size` bytes with the probability
// p = 1 - exp(-size / N) (a Poisson process over the allocated bytes, as tcmalloc and jemalloc
// sample), and a release only when its allocation was recorded. Dividing by p makes each sampled
// allocation stand for 1 / p allocations of `size` bytes: summed over a site, the estimate of its
// allocations and bytes is unbiased (pprof's unsampling of heap profiles does the same). The
// variance of a site's byte estimate is the sum of size^2 (1 - p) / p over its allocations: about
// N times the site's bytes when its blocks are much smaller than N (a relative standard deviation
// of sqrt(N / bytes)), and 0 for blocks much larger than N, which are always recorded
// (docs/sampling.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rtrace {

// A sampled trace names its interval in a module record: this prefix and N in decimal. The
// tracer writes it (protocol/tracer_options.h holds the same text, which src/model may not
// include; a test checks that they agree).
inline constexpr std::string_view kSampledModulePrefix = "sample-bytes=";

// The interval a module record's name declares, when it is the sampling module's.
std::optional<std::uint64_t> sampling_interval(std::string_view module_name);

// What one recorded allocation stands for.
struct SampleEstimate {
  std::uint64_t count = 1;
  std::uint64_t bytes = 0;

  friend bool operator==(const SampleEstimate&, const SampleEstimate&) = default;
};

// 1 / p, the number of allocations of `size` bytes one sample stands for (1 with interval 0,
// the unsampled trace, and for a size of 0, which the sampler never picks).
double sample_weight(std::uint64_t size, std::uint64_t interval);

// The estimate of one recorded allocation of `size` bytes. The bytes are size / p rounded; the
// count is 1 / p rounded up or down by `key` (any value that varies between allocations: the
// call's index, a block's address), so that the rounding adds no bias: a weight of 1.3 counts 2
// for 30 % of the keys and 1 for the others. The same size and key always give the same
// estimate, so that a release takes back exactly what its allocation added.
SampleEstimate estimate_sample(std::uint64_t size, std::uint64_t interval, std::uint64_t key);

// What a report says of a sampled trace's figures: "estimated (sampled every N bytes)".
std::string sampling_note(std::uint64_t interval);

}  // namespace rtrace
