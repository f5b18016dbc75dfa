#include "filters/leak_kinds_filter.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rtrace {

LeakKindSelection parse_leak_kinds(std::string_view text) {
  LeakKindSelection selected{};
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view word = text.substr(0, comma);
    if (word == "all") {
      for (const LeakKind kind : kLeakKinds) {
        selected[static_cast<std::size_t>(kind)] = true;
      }
    } else if (const std::optional<LeakKind> kind = leak_kind_from_option(word)) {
      selected[static_cast<std::size_t>(*kind)] = true;
    } else {
      throw std::invalid_argument("unknown leak kind '" + std::string(word) +
                                  "' (definite, indirect, possible, reachable or all)");
    }
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return selected;
}

void LeakKindsFilter::leak_kinds(const LeakKinds& kinds) {
  auto& blocks = kinds_[kinds.pid];
  for (const BlockKind& block : kinds.blocks) {
    blocks[block.resource_id] = block.kind;
  }
  next().leak_kinds(kinds);
}

void LeakKindsFilter::call(const CallRecord& record) {
  if (record.call.kind == CallKind::Alloc) {
    const auto process = kinds_.find(record.call.pid);
    if (process != kinds_.end()) {
      const auto block = process->second.find(record.call.resource_id);
      if (block != process->second.end() && !selected_[static_cast<std::size_t>(block->second)]) {
        Dropped& dropped = dropped_[record.call.resource_type];
        ++dropped.blocks;
        dropped.bytes += record.call.size;
        return;
      }
    }
  }
  next().call(record);
}

void LeakKindsFilter::leak_summary(const LeakSummary& summary) {
  const auto dropped = dropped_.find(summary.resource_type);
  if (dropped == dropped_.end()) {
    next().leak_summary(summary);
    return;
  }
  LeakSummary kept = summary;
  kept.blocks -= std::min(kept.blocks, dropped->second.blocks);
  kept.bytes -= std::min(kept.bytes, dropped->second.bytes);
  next().leak_summary(kept);
}

}  // namespace rtrace
