#include "filters/compress_stage.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "filters/live_resources.h"
#include "model/sampling.h"

namespace rtrace {

std::optional<GroupOrder> parse_group_order(std::string_view text) {
  if (text == "size") {
    return GroupOrder::SizeDescending;
  }
  if (text == "size-asc") {
    return GroupOrder::SizeAscending;
  }
  if (text == "count") {
    return GroupOrder::CountDescending;
  }
  if (text == "count-asc") {
    return GroupOrder::CountAscending;
  }
  return std::nullopt;
}

void CompressStage::header(const TraceHeader& header) {
  TraceHeader marked = header;
  marked.applied.compress = true;
  next().header(marked);
}

void CompressStage::module(const ModuleInfo& module) {
  if (const std::optional<std::uint64_t> interval = sampling_interval(module.name)) {
    sample_interval_ = *interval;
  }
  next().module(module);
}

void CompressStage::resource_type(const ResourceType& type) {
  if (type.type == "memory") {
    memory_type_ = effective_resource_type(type.id);
  }
  next().resource_type(type);
}

void CompressStage::call(const CallRecord& record) {
  seen_call_ = true;
  const StoredCall stored = store_.store(record);
  const auto position = static_cast<std::uint32_t>(calls_.size());
  calls_.push_back(stored);
  next_in_group_.push_back(0);

  if (stored.backtrace >= group_of_backtrace_.size()) {
    group_of_backtrace_.resize(stored.backtrace + 1, 0);
  }
  std::uint32_t& group_number = group_of_backtrace_[stored.backtrace];
  if (group_number == 0) {
    groups_.push_back(Group{.backtrace = stored.backtrace,
                            .first_index = stored.call.index,
                            .first_call = position,
                            .last_call = position});
    group_number = static_cast<std::uint32_t>(groups_.size());
  } else {
    Group& group = groups_[group_number - 1];
    next_in_group_[group.last_call] = position;
    group.last_call = position;
    group.first_index = std::min(group.first_index, stored.call.index);
  }
  Group& group = groups_[group_number - 1];
  const bool estimated = sample_interval_ != 0 &&
                         effective_resource_type(record.call.resource_type) == memory_type_ &&
                         record.call.kind == CallKind::Alloc;
  const SampleEstimate estimate =
      estimated ? estimate_sample(record.call.size, sample_interval_, record.call.index)
                : SampleEstimate{.count = 1, .bytes = stored.call.size};
  ++group.calls;
  group.block_count += estimate.count;
  // Sizes near 2^64 (hostile text) saturate instead of wrapping (rtrace-process(1), -c).
  if (__builtin_add_overflow(group.total_size, estimate.bytes, &group.total_size)) {
    group.total_size = UINT64_MAX;
  }
}

void CompressStage::leak_summary(const LeakSummary& summary) {
  if (seen_call_) {
    trailing_summaries_.push_back(summary);
  } else {
    next().leak_summary(summary);
  }
}

void CompressStage::note(const Note& note) {
  if (seen_call_) {
    trailing_notes_.emplace_back(note.text);
  } else {
    next().note(note);
  }
}

void CompressStage::sort_groups() {
  auto key = [this](const Group& g) {
    switch (order_) {
      case GroupOrder::SizeAscending:
        return std::tuple(g.total_size, g.first_index);
      case GroupOrder::SizeDescending:
        return std::tuple(~g.total_size, g.first_index);
      case GroupOrder::CountAscending:
        return std::tuple(g.block_count, g.first_index);
      case GroupOrder::CountDescending:
        return std::tuple(~g.block_count, g.first_index);
    }
    return std::tuple(g.total_size, g.first_index);
  };
  std::ranges::sort(groups_, {}, key);
}

void CompressStage::emit_group(const Group& group) {
  // The records are built straight from the chain: a group can hold half the trace (the
  // releases), so no second copy of its calls.
  std::vector<CallRecord> records;
  std::vector<Argument> arguments;
  records.reserve(group.calls);
  store_.expand(
      [&](auto visit) {
        for (std::uint32_t i = group.first_call;; i = next_in_group_[i]) {
          visit(calls_[i]);
          if (i == group.last_call) {
            break;
          }
        }
      },
      true, records, arguments);
  // Calls arrive in index order from every reader; only a reordered input needs sorting.
  const auto by_index = [](const CallRecord& r) { return r.call.index; };
  if (!std::ranges::is_sorted(records, {}, by_index)) {
    std::ranges::stable_sort(records, {}, by_index);
  }
  next().group(CallGroup{.call_count = records.size(),
                         .block_count = group.block_count,
                         .total_size = group.total_size});
  for (const CallRecord& record : records) {
    next().call(record);
  }
}

void CompressStage::finish() {
  sort_groups();
  for (const Group& group : groups_) {
    emit_group(group);
  }
  for (const std::string& text : trailing_notes_) {
    next().note({text});
  }
  for (const LeakSummary& summary : trailing_summaries_) {
    next().leak_summary(summary);
  }
  next().finish();
}

}  // namespace rtrace
