#include "filters/leaks_filter.h"

#include <algorithm>

namespace rtrace {

void LeaksFilter::header(const TraceHeader& header) {
  TraceHeader marked = header;
  marked.applied.leaks = true;
  next().header(marked);
}

void LeaksFilter::resource_type(const ResourceType& type) {
  types_.push_back({.type = type});
  live_.add_type(type);
  next().resource_type(type);
}

std::uint32_t LeaksFilter::keep(const CallRecord& record) {
  const StoredCall stored = store_.store(record);
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = stored;
    occupied_[slot] = true;
    return slot;
  }
  slots_.push_back(stored);
  occupied_.push_back(true);
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void LeaksFilter::release(std::uint32_t slot) {
  occupied_[slot] = false;
  free_slots_.push_back(slot);
}

void LeaksFilter::call(const CallRecord& record) {
  switch (record.call.kind) {
    case CallKind::Alloc:
      if (std::uint32_t* slot = live_.allocate(resource_key(record.call))) {
        *slot = keep(record);
      }
      return;
    case CallKind::Free:
      if (const auto slot = live_.release(resource_key(record.call))) {
        release(*slot);
      }
      return;
    case CallKind::Other:
    case CallKind::Enter:
    case CallKind::Exit:
      keep(record);
      return;
  }
}

void LeaksFilter::emit_survivors() {
  std::vector<StoredCall> survivors;
  for (std::size_t slot = 0; slot < slots_.size(); ++slot) {
    if (occupied_[slot]) {
      survivors.push_back(slots_[slot]);
    }
  }
  std::ranges::sort(survivors, {}, [](const StoredCall& s) { return s.call.index; });

  std::vector<CallRecord> records;
  std::vector<Argument> arguments;
  for (const StoredCall& survivor : survivors) {
    store_.expand([&](auto visit) { visit(survivor); }, true, records, arguments);
    next().call(records.front());
    if (survivor.call.kind != CallKind::Alloc) {
      continue;
    }
    const std::uint32_t type = effective_resource_type(survivor.call.resource_type);
    auto summary =
        std::ranges::find_if(types_, [type](const TypeSummary& t) { return t.type.id == type; });
    if (summary == types_.end() && !types_.empty()) {
      summary = types_.begin();
    }
    if (summary == types_.end()) {
      continue;
    }
    ++summary->blocks;
    summary->bytes += survivor.call.size;
  }
}

void LeaksFilter::emit_summary() {
  for (const TypeSummary& summary : types_) {
    next().leak_summary(LeakSummary{.resource_type = summary.type.id,
                                    .type = summary.type.type,
                                    .description = summary.type.description,
                                    .blocks = summary.blocks,
                                    .bytes = summary.bytes});
  }
}

void LeaksFilter::finish() {
  emit_survivors();
  emit_summary();
  next().finish();
}

}  // namespace rtrace
