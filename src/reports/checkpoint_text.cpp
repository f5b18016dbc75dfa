#include "reports/checkpoint_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace rtrace::reports {
namespace {

constexpr std::uint64_t kNanosecondsPerSecond = 1'000'000'000;

// Seconds with six decimals (microseconds, truncated), as StackTrack's expand_events prints.
std::string seconds(std::uint64_t ns) {
  return fmt::format("{}.{:06}", ns / kNanosecondsPerSecond, ns % kNanosecondsPerSecond / 1000);
}

std::string interval_text(const IntervalStats& between) {
  if (between.count == 0) {
    return "no interval";
  }
  return fmt::format(
      "min {}, median {}{}, max {} ({} interval(s){})", seconds(between.min_ns),
      between.median_estimated ? "~" : "", seconds(between.median_ns), seconds(between.max_ns),
      between.count,
      between.median_estimated ? fmt::format("; median of a sample of {}", kMedianSample) : "");
}

void append_scope(std::string& out, const CheckpointStats& c, std::uint64_t start_ns) {
  fmt::format_to(std::back_inserter(out), "  {}{}{} (pid {}): {} hit(s) in {} thread(s)", c.scope,
                 c.location.empty() ? "" : " at ", c.location, c.pid, c.hits, c.threads);
  if (c.first_ns != 0) {
    // The start is the first timestamp of the trace: no hit comes before it.
    fmt::format_to(std::back_inserter(out), ", first {}, last {}", seconds(c.first_ns - start_ns),
                   seconds(c.last_ns - start_ns));
  }
  fmt::format_to(std::back_inserter(out), "\n    between hits of one thread: {}\n",
                 interval_text(c.between_hits));
}

}  // namespace

std::string render_checkpoints(const std::vector<CheckpointStats>& checkpoints, std::size_t top,
                               std::uint64_t start_ns) {
  if (checkpoints.empty()) {
    return {};
  }
  std::vector<const CheckpointStats*> order;
  order.reserve(checkpoints.size());
  for (const CheckpointStats& c : checkpoints) {
    order.push_back(&c);
  }
  std::ranges::stable_sort(
      order, [](const CheckpointStats* a, const CheckpointStats* b) { return a->hits > b->hits; });
  // Since the trace's first timestamp, as every time of the report: the trace's own clock
  // starts with the process (StackTrack) or with the machine (sp-rtrace's and rtrace's tracers).
  std::string out =
      "\nCHECKPOINTS (calls that neither allocate nor release; seconds since the trace's start)\n";
  const std::size_t shown = std::min(order.size(), top);
  for (std::size_t i = 0; i < shown; ++i) {
    append_scope(out, *order[i], start_ns);
  }
  if (order.size() > shown) {
    fmt::format_to(std::back_inserter(out), "  ... and {} more scope(s) (-n)\n",
                   order.size() - shown);
  }
  return out;
}

}  // namespace rtrace::reports
