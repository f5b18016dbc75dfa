#include "filters/leaks_filter.h"

#include <fmt/format.h>

#include <algorithm>

namespace rtrace {
namespace {

// A single-type trace may leave a call's type unset (0); it is the first (only) type.
std::uint32_t effective_type(std::uint32_t type) {
  return type == 0 ? 1 : type;
}

}  // namespace

void LeaksFilter::handshake(const Handshake& handshake) {
  Handshake marked = handshake;
  marked.filters.leaks = true;
  next().handshake(marked);
}

void LeaksFilter::resource_type(const ResourceType& type) {
  types_.push_back({.type = type});
  next().resource_type(type);
}

bool LeaksFilter::refcounted(std::uint32_t type) const {
  return std::ranges::any_of(
      types_, [type](const TypeSummary& t) { return t.type.id == type && t.type.refcounted(); });
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
  const Call& call = record.call;
  const ResourceKey key{.id = call.resource_id, .type = effective_type(call.resource_type)};
  switch (call.kind) {
    case CallKind::Alloc: {
      const auto [position, added] = live_.insert(key, Live{});
      Live& live = live_.at(position);
      if (!added && refcounted(key.type)) {
        ++live.references;
        return;
      }
      // An id allocated again without a release in between: the earlier block stays a leak.
      live = Live{.slot = keep(record), .references = 1};
      return;
    }
    case CallKind::Free: {
      const std::size_t position = live_.find(key);
      if (position == ResourceMap<Live>::kNone) {
        return;
      }
      Live& live = live_.at(position);
      if (--live.references == 0 || !refcounted(key.type)) {
        release(live.slot);
        live_.erase_at(position);
      }
      return;
    }
    case CallKind::Other:
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
    const std::uint32_t type = effective_type(survivor.call.resource_type);
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
    next().comment(
        fmt::format("# Resource - {} ({}):", summary.type.type, summary.type.description));
    next().comment(fmt::format("# {} block(s) leaked with total size of {} bytes", summary.blocks,
                               summary.bytes));
  }
}

void LeaksFilter::finish() {
  emit_survivors();
  emit_summary();
  next().finish();
}

}  // namespace rtrace
