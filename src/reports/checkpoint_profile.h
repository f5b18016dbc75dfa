// The report's CHECKPOINTS section: for calls that neither allocate nor release (StackTrack's
// checkpoint hits, scope enters), per scope (function name, per process): how often it was
// hit, in how many threads, when first and last, and the time between consecutive hits of one
// thread (min, median, max) - the closest to a profile such traces allow.
//
// Memory is bounded per scope, never by the number of calls: one small aggregate per (scope,
// thread), and at most kMedianSample intervals per scope for the median. Up to that many the
// median is exact; beyond it, it is the median of a uniform random sample of the intervals
// (reservoir sampling with a fixed seed, so reports are reproducible), and says so.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/records.h"

namespace rtrace::reports {

inline constexpr std::size_t kMedianSample = 1024;

struct IntervalStats {
  std::uint64_t count = 0;  // intervals between consecutive hits of a thread
  std::uint64_t min_ns = 0;
  std::uint64_t median_ns = 0;
  std::uint64_t max_ns = 0;
  bool median_estimated = false;  // more intervals than kMedianSample
};

struct CheckpointStats {
  std::string scope;     // the calls' function name
  std::string location;  // "file:line" of the calls' first frame, when it names one
  std::uint32_t pid = 0;
  std::uint64_t hits = 0;
  std::uint64_t threads = 0;
  std::uint64_t first_ns = 0;  // timestamps of the first and last hit with a time
  std::uint64_t last_ns = 0;
  IntervalStats between_hits;
};

class CheckpointProfile {
 public:
  void symbol(SymbolId id, const Symbol& symbol);
  // Counts `record` when it is a call that neither allocates nor releases.
  void call(const CallRecord& record);
  // Every scope, in order of first hit.
  std::vector<CheckpointStats> result() const;

 private:
  struct ThreadState {
    std::uint64_t last_ns = 0;  // 0: no timed hit yet
  };
  struct Scope {
    CheckpointStats stats;
    std::unordered_map<std::uint64_t, ThreadState> threads;
    std::vector<std::uint64_t> sample;  // intervals, reservoir of at most kMedianSample
  };

  Scope& scope_for(const CallRecord& record);
  void add_interval(Scope& scope, std::uint64_t interval);
  std::string location_of(const CallRecord& record) const;

  std::unordered_map<SymbolId, std::string> locations_;  // "file:line" by symbol
  std::unordered_map<std::string, std::size_t> index_;   // pid + '\0' + name -> scopes_
  std::vector<Scope> scopes_;
  std::mt19937_64 random_{0x5eed};
};

}  // namespace rtrace::reports
