#include "filters/suppress_stage.h"

#include <fmt/format.h>

#include <algorithm>

namespace rtrace {

void SuppressStage::mapping(const Mapping& mapping) {
  mappings_.push_back(mapping);
  next().mapping(mapping);
}

void SuppressStage::symbol(SymbolId id, const Symbol& symbol) {
  symbols_.insert_or_assign(id, symbol);
  next().symbol(id, symbol);
}

// The first rule a frame matches, innermost frame first (as LSan credits its rules).
std::optional<std::size_t> SuppressStage::match(const CallRecord& record) const {
  for (const Frame& frame : record.frames) {
    if (const auto symbol = symbols_.find(frame.symbol); symbol != symbols_.end()) {
      if (const std::optional<std::size_t> rule = rules_->match_symbol(symbol->second)) {
        return rule;
      }
    }
    // The maps of the call's process, the latest first: a library loaded again lies elsewhere.
    const auto mapping = std::find_if(mappings_.rbegin(), mappings_.rend(), [&](const Mapping& m) {
      return (m.pid == 0 || m.pid == record.call.pid) && frame.address >= m.from &&
             frame.address < m.to;
    });
    if (mapping != mappings_.rend()) {
      if (const std::optional<std::size_t> rule =
              rules_->match(SuppressionFrame{.module = mapping->path})) {
        return rule;
      }
    }
  }
  return std::nullopt;
}

void SuppressStage::call(const CallRecord& record) {
  const std::optional<std::size_t> rule =
      record.call.kind == CallKind::Alloc ? match(record) : std::nullopt;
  if (!rule) {
    next().call(record);
    return;
  }
  for (Suppressed* counted : {&by_type_[record.call.resource_type], &total_}) {
    ++counted->blocks;
    counted->bytes += record.call.size;
  }
  by_rule_.resize(rules_->rules().size());
  ++by_rule_[*rule].blocks;
  by_rule_[*rule].bytes += record.call.size;
}

// Before the summaries (or at the end, when there are none): how much the rules took, and which
// rule how much.
void SuppressStage::note_totals() {
  if (noted_ || total_.blocks == 0) {
    return;
  }
  noted_ = true;
  next().note(
      {fmt::format("# suppressed: {} block(s) with total size {}", total_.blocks, total_.bytes)});
  for (std::size_t i = 0; i < by_rule_.size(); ++i) {
    if (by_rule_[i].blocks > 0) {
      const SuppressionRule& rule = rules_->rules()[i];
      next().note(
          {fmt::format("#   {} block(s) with total size {} by leak:{} ({}:{})", by_rule_[i].blocks,
                       by_rule_[i].bytes, rule.pattern, rule.source, rule.line)});
    }
  }
}

void SuppressStage::leak_summary(const LeakSummary& summary) {
  note_totals();
  const auto suppressed = by_type_.find(summary.resource_type);
  if (suppressed == by_type_.end()) {
    next().leak_summary(summary);
    return;
  }
  LeakSummary lessened = summary;
  lessened.blocks -= std::min(lessened.blocks, suppressed->second.blocks);
  lessened.bytes -= std::min(lessened.bytes, suppressed->second.bytes);
  next().leak_summary(lessened);
}

void SuppressStage::finish() {
  note_totals();
  next().finish();
}

}  // namespace rtrace
