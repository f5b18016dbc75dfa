#include "model/sampling.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace rtrace {
namespace {

// A key spread over 64 bits (splitmix64's finaliser): consecutive indexes, aligned addresses.
std::uint64_t mixed(std::uint64_t key) {
  key += 0x9e3779b97f4a7c15ULL;
  key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
  key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
  return key ^ (key >> 31);
}

}  // namespace

std::optional<std::uint64_t> sampling_interval(std::string_view module_name) {
  if (!module_name.starts_with(kSampledModulePrefix)) {
    return std::nullopt;
  }
  const std::string_view digits = module_name.substr(kSampledModulePrefix.size());
  std::uint64_t interval = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), interval);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
      interval == 0) {
    return std::nullopt;
  }
  return interval;
}

double sample_weight(std::uint64_t size, std::uint64_t interval) {
  if (interval == 0 || size == 0) {
    return 1.0;
  }
  // -expm1(-x) is 1 - exp(-x) without the cancellation of small x.
  return 1.0 / -std::expm1(-static_cast<double>(size) / static_cast<double>(interval));
}

SampleEstimate estimate_sample(std::uint64_t size, std::uint64_t interval, std::uint64_t key) {
  if (interval == 0) {
    return {.count = 1, .bytes = size};
  }
  const double weight = sample_weight(size, interval);
  const double whole = std::floor(weight);
  // A uniform draw in [0, 1) from the key: count one more with the probability of the fraction.
  const double draw = static_cast<double>(mixed(key) >> 11) * 0x1.0p-53;
  const double count = whole + (draw < weight - whole ? 1.0 : 0.0);
  return {.count = static_cast<std::uint64_t>(count),
          .bytes = static_cast<std::uint64_t>(std::llround(static_cast<double>(size) * weight))};
}

std::string sampling_note(std::uint64_t interval) {
  return "estimated (sampled every " + std::to_string(interval) + " bytes)";
}

}  // namespace rtrace
