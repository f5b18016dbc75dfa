// The positions an exhaustive test tries, such as every length a file can be cut to. The full
// sweep is slow, most of all under the sanitizers: the ordinary run tries a fixed sample of it,
// the same on every run and machine, and `make check-slow` (the ctest label `slow`, which sets
// RTRACE_FULL_SWEEP) tries every position.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace rtrace::test {

// Whether RTRACE_FULL_SWEEP is set in the environment (to anything but "" or "0").
bool full_sweep();

// The positions from `begin` up to but not including `end`, ascending: all of them in a full
// sweep; otherwise the first and last kSweepEdge, every one of `always` in the range, and
// kSweepSample more drawn by a generator seeded with the range's length (the same on every run).
inline constexpr std::size_t kSweepEdge = 8;
inline constexpr std::size_t kSweepSample = 96;
std::vector<std::size_t> sweep(std::size_t begin, std::size_t end,
                               std::initializer_list<std::size_t> always = {});
std::vector<std::size_t> sweep(std::size_t begin, std::size_t end,
                               const std::vector<std::size_t>& always);

}  // namespace rtrace::test
