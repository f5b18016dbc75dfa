#include "filters/leaks_filter.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace rtrace {
namespace {

// A live call's arguments, packed into one string: each text as its length then its bytes.
void pack(std::string& packed, std::string_view text) {
  const auto length = static_cast<std::uint32_t>(text.size());
  packed.append(reinterpret_cast<const char*>(&length), sizeof length);
  packed.append(text);
}

std::string_view unpack(std::string_view& packed) {
  std::uint32_t length = 0;
  std::memcpy(&length, packed.data(), sizeof length);
  const std::string_view text = packed.substr(sizeof length, length);
  packed.remove_prefix(sizeof length + length);
  return text;
}

}  // namespace

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
  // The store shares names and stacks; arguments are the allocation's own.
  CallRecord bare = record;
  bare.arguments = {};
  const StoredCall stored = store_.store(bare);
  std::uint32_t slot = 0;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = stored;
    occupied_[slot] = true;
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(stored);
    occupied_.push_back(true);
    has_arguments_.push_back(false);
  }
  if (!record.arguments.empty()) {
    if (arguments_.size() <= slot) {
      arguments_.resize(slots_.size());
    }
    for (const Argument& argument : record.arguments) {
      pack(arguments_[slot], argument.name);
      pack(arguments_[slot], argument.value);
    }
    has_arguments_[slot] = true;
  }
  return slot;
}

void LeaksFilter::release(std::uint32_t slot) {
  occupied_[slot] = false;
  if (has_arguments_[slot]) {
    has_arguments_[slot] = false;
    arguments_[slot] = std::string();  // gives the arguments' memory back
  }
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
      return;  // holds no resource: cannot leak (see the header)
  }
}

void LeaksFilter::emit_survivors() {
  // The survivors in call order. Slots are taken in call order until one is reused: when no
  // slot was (as on the binary format's leaks scan, which delivers no releases), they
  // already are, and the sort (a fifth of this stage's work there) is skipped.
  std::vector<std::uint32_t> survivors;
  for (std::uint32_t slot = 0; slot < slots_.size(); ++slot) {
    if (occupied_[slot]) {
      survivors.push_back(slot);
    }
  }
  const auto by_call = [this](std::uint32_t a, std::uint32_t b) {
    return slots_[a].call.index < slots_[b].call.index;
  };
  if (!std::is_sorted(survivors.begin(), survivors.end(), by_call)) {
    std::sort(survivors.begin(), survivors.end(), by_call);
  }

  std::vector<CallRecord> records;
  std::vector<Argument> unused;
  std::vector<Argument> arguments;
  for (const std::uint32_t survivor : survivors) {
    store_.expand([&](auto visit) { visit(slots_[survivor]); }, true, records, unused);
    arguments.clear();
    std::string_view packed =
        has_arguments_[survivor] ? std::string_view(arguments_[survivor]) : std::string_view();
    while (!packed.empty()) {
      const std::string_view name = unpack(packed);
      arguments.push_back({.name = name, .value = unpack(packed)});
    }
    CallRecord& record = records.front();
    record.arguments = arguments;
    next().call(record);
    count_leak(record.call);
  }
}

void LeaksFilter::count_leak(const Call& call) {
  const std::uint32_t type = effective_resource_type(call.resource_type);
  auto summary =
      std::ranges::find_if(types_, [type](const TypeSummary& t) { return t.type.id == type; });
  if (summary == types_.end() && !types_.empty()) {
    summary = types_.begin();
  }
  if (summary == types_.end()) {
    return;
  }
  ++summary->blocks;
  // Sizes near 2^64 (hostile text) saturate instead of wrapping (rtrace-process(1), -l).
  if (__builtin_add_overflow(summary->bytes, call.size, &summary->bytes)) {
    summary->bytes = UINT64_MAX;
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
