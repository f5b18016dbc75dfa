// -c / --compress (with -s / --sort): groups calls by identical backtrace.
//
// Every call is held (compactly) until the end, then each distinct backtrace comes out as one
// CallGroup record (the number of calls and the sum of their sizes) followed by its calls in
// index order, each with the shared backtrace. Calls without a backtrace (releases, usually)
// form one group of their own.
//
// Group order: total size ascending by default (what the original really does; its manual
// claims descending), or as -s asks. The original leaves ties to its hash table; we break them
// by the group's first call index so that the output never depends on chance.
//
// Leak summaries (of -l, which runs before) and notes that arrive after the first call stay
// after the groups.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "filters/call_store.h"
#include "model/trace_sink.h"

namespace rtrace {

enum class GroupOrder : std::uint8_t {
  SizeAscending,
  SizeDescending,
  CountAscending,
  CountDescending
};

// "size", "size-asc", "count", "count-asc" as -s spells them; nullopt for anything else.
std::optional<GroupOrder> parse_group_order(std::string_view text);

class CompressStage final : public ForwardingSink {
 public:
  CompressStage(TraceSink& next, GroupOrder order) : ForwardingSink(next), order_(order) {}

  void header(const TraceHeader& header) override;
  void module(const ModuleInfo& module) override;
  void resource_type(const ResourceType& type) override;
  void call(const CallRecord& record) override;
  void leak_summary(const LeakSummary& summary) override;
  void note(const Note& note) override;
  void finish() override;

 private:
  struct Group {
    BacktraceId backtrace = 0;
    std::uint64_t first_index = 0;
    std::uint64_t calls = 0;
    std::uint64_t block_count = 0;  // the estimate in a sampled trace, else the calls
    std::uint64_t total_size = 0;
    std::uint32_t first_call = 0;  // into calls_, then chained through next_in_group_
    std::uint32_t last_call = 0;
  };

  void sort_groups();
  void emit_group(const Group& group);

  GroupOrder order_;
  // A sampled trace (model/sampling.h): a group's blocks and size are the estimates of its memory
  // calls.
  std::uint64_t sample_interval_ = 0;
  std::uint32_t memory_type_ = 0;
  CallStore store_;
  // Deques grow in chunks: no copy of every call when they grow.
  std::deque<StoredCall> calls_;
  std::deque<std::uint32_t> next_in_group_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> group_of_backtrace_;  // BacktraceId -> index in groups_ + 1
  std::vector<LeakSummary> trailing_summaries_;
  std::vector<std::string> trailing_notes_;
  bool seen_call_ = false;
};

}  // namespace rtrace
