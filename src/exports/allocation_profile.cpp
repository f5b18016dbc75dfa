#include "exports/allocation_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace rtrace::exporters {

Weight parse_weight(std::string_view name) {
  if (name.empty() || name == "allocated") {
    return Weight::Allocated;
  }
  if (name == "leaked") {
    return Weight::Leaked;
  }
  if (name == "peak") {
    return Weight::Peak;
  }
  if (name == "count") {
    return Weight::Count;
  }
  throw std::invalid_argument(
      fmt::format("unknown weight '{}' (leaked, allocated, peak or count)", name));
}

std::string_view weight_unit(Weight weight) {
  return weight == Weight::Count ? "allocations" : "bytes";
}

std::uint64_t Site::weight(Weight w) const {
  switch (w) {
    case Weight::Allocated:
      return bytes_allocated;
    case Weight::Leaked:
      return live_bytes;
    case Weight::Peak:
      return peak_bytes;
    case Weight::Count:
      return allocations;
  }
  return 0;
}

void AllocationProfile::process(const ProcessInfo& info) {
  if (process_name_.empty()) {
    process_name_ = info.name;
    pid_ = info.pid;
  }
}

TypeProfile& AllocationProfile::type_profile(std::uint32_t id) {
  const auto [found, added] = types_.try_emplace(id);
  if (added) {
    found->second.type.id = id;
    found->second.type.type = fmt::format("type{}", id);
    type_order_.push_back(id);
  }
  return found->second;
}

void AllocationProfile::resource_type(const ResourceType& type) {
  live_.add_type(type);
  type_profile(effective_resource_type(type.id)).type = type;
  if (type.type == "memory") {
    memory_type_ = effective_resource_type(type.id);
  }
}

void AllocationProfile::module(const ModuleInfo& module) {
  if (const std::optional<std::uint64_t> interval = sampling_interval(module.name)) {
    sample_interval_ = *interval;
  }
}

SampleEstimate AllocationProfile::estimate(const Call& call, std::uint32_t type) const {
  if (sample_interval_ == 0 || type != memory_type_) {
    return {.count = 1, .bytes = call.size};
  }
  return estimate_sample(call.size, sample_interval_, call.index);
}

std::uint64_t AllocationProfile::clock(const Call& call) {
  if (call.timestamp_ns != 0) {
    if (!timed_) {
      timed_ = true;
      first_time_ns_ = call.timestamp_ns;
    }
    last_time_ns_ = call.timestamp_ns;
  }
  return last_time_ns_;
}

std::uint32_t AllocationProfile::site_for(std::uint32_t type, std::span<const Frame> frames) {
  const BacktraceId backtrace = backtraces_.intern(frames);
  const std::uint64_t key = static_cast<std::uint64_t>(type) << 32 | backtrace;
  const auto [found, added] = site_of_.try_emplace(key, static_cast<std::uint32_t>(sites_.size()));
  if (added) {
    sites_.push_back(
        Site{.type = type, .backtrace = backtrace, .peak_generation = types_[type].generation});
  }
  return found->second;
}

void AllocationProfile::change_live(Site& site, std::int64_t blocks, std::int64_t bytes,
                                    const Call& call, std::uint64_t time_ns) {
  TypeProfile& type = types_[site.type];
  if (site.peak_generation != type.generation) {
    // Unchanged since the type's latest peak: its value then is its value now.
    site.peak_bytes = site.live_bytes;
    site.peak_generation = type.generation;
  }
  site.live_blocks += static_cast<std::uint64_t>(blocks);
  site.live_bytes += static_cast<std::uint64_t>(bytes);
  change_type_live(type, blocks, bytes, call, time_ns);
}

void AllocationProfile::change_type_live(TypeProfile& type, std::int64_t blocks, std::int64_t bytes,
                                         const Call& call, std::uint64_t time_ns) {
  type.live_bytes += static_cast<std::uint64_t>(bytes);
  type.live_blocks += static_cast<std::uint64_t>(blocks);
  if (type.live_bytes > type.peak_bytes) {
    type.peak_bytes = type.live_bytes;
    type.peak_blocks = type.live_blocks;
    type.peak_index = call.index;
    type.peak_time_ns = time_ns;
    ++type.generation;
  }
  const TimelinePoint point{.time_ns = time_ns,
                            .index = call.index,
                            .value = type.live_bytes,
                            .blocks = type.live_blocks};
  type.timeline.add(point);
  live_changed(type, point);
}

void AllocationProfile::call(const CallRecord& record) {
  const std::uint64_t time_ns = clock(record.call);
  const ResourceKey key = resource_key(record.call);
  if (record.call.kind == CallKind::Alloc) {
    TypeProfile& type = type_profile(key.type);
    // What the call stands for: itself, unless the trace is sampled (model/sampling.h).
    const SampleEstimate estimated = estimate(record.call, key.type);
    type.allocations += estimated.count;
    LiveBlock* block = live_.allocate(key);
    if (block == nullptr) {
      return;  // one more reference to a live block of a refcounted type
    }
    // A block stands for the same estimate until its release.
    const auto count = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(estimated.count, std::numeric_limits<std::uint32_t>::max()));
    const auto blocks = static_cast<std::int64_t>(count);
    const auto bytes = static_cast<std::int64_t>(estimated.bytes);
    if (!with_sites_) {
      *block = LiveBlock{.site = kNoSite, .count = count, .size = estimated.bytes};
      change_type_live(type, blocks, bytes, record.call, time_ns);
      return;
    }
    const std::uint32_t index = site_for(key.type, record.frames);
    *block = LiveBlock{.site = index, .count = count, .size = estimated.bytes};
    Site& site = sites_[index];
    if (counting_) {
      site.allocations += estimated.count;
      site.bytes_allocated += estimated.bytes;
    }
    change_live(site, blocks, bytes, record.call, time_ns);
  } else if (record.call.kind == CallKind::Free) {
    if (const std::optional<LiveBlock> block = live_.release(key)) {
      const auto blocks = -static_cast<std::int64_t>(block->count);
      const auto bytes = -static_cast<std::int64_t>(block->size);
      if (block->site == kNoSite) {
        change_type_live(types_[key.type], blocks, bytes, record.call, time_ns);
        return;
      }
      change_live(sites_[block->site], blocks, bytes, record.call, time_ns);
    }
  }
}

void AllocationProfile::settle() {
  for (Site& site : sites_) {
    if (site.peak_generation != types_[site.type].generation) {
      site.peak_bytes = site.live_bytes;
      site.peak_generation = types_[site.type].generation;
    }
  }
}

const Symbol* AllocationProfile::symbol_of(const Frame& frame) const {
  const auto known = symbols_.find(frame.symbol);
  return known == symbols_.end() ? nullptr : &known->second;
}

namespace {

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string AllocationProfile::frame_name(const Frame& frame) const {
  std::string_view module;
  if (const Symbol* s = symbol_of(frame)) {
    if (!s->where.function.empty()) {
      return s->where.function;
    }
    module = s->module;
  }
  if (module.empty()) {
    // The latest mapping wins, as in the report.
    for (auto m = mappings_.rbegin(); m != mappings_.rend(); ++m) {
      if (frame.address >= m->from && frame.address < m->to) {
        module = m->path;
        break;
      }
    }
  }
  if (module.empty()) {
    return fmt::format("{:#x}", frame.address);
  }
  return fmt::format("{:#x} in {}", frame.address, base_name(module));
}

std::vector<std::string> AllocationProfile::stack_names(const Site& site) const {
  const std::span<const Frame> innermost_first = frames(site);
  if (innermost_first.empty()) {
    return {"[no backtrace]"};
  }
  std::vector<std::string> names;
  names.reserve(innermost_first.size());
  for (auto frame = innermost_first.rbegin(); frame != innermost_first.rend(); ++frame) {
    names.push_back(frame_name(*frame));
  }
  return names;
}

std::vector<const TypeProfile*> AllocationProfile::types() const {
  std::vector<const TypeProfile*> list;
  for (const std::uint32_t id : type_order_) {
    list.push_back(&types_.at(id));
  }
  return list;
}

const TypeProfile* AllocationProfile::chosen_type(std::string_view name) const {
  for (const TypeProfile* type : types()) {
    if (name.empty() ? type->allocations > 0 : type->type.type == name) {
      return type;
    }
  }
  if (!name.empty()) {
    throw std::invalid_argument(fmt::format("the trace has no resource type '{}'", name));
  }
  return nullptr;
}

std::string human_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    return fmt::format("{} B", bytes);
  }
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string human_weight(std::uint64_t value, Weight weight) {
  if (weight == Weight::Count) {
    return fmt::format("{} allocation{}", value, value == 1 ? "" : "s");
  }
  return human_bytes(value);
}

std::string xml_escape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        escaped += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
    }
  }
  return escaped;
}

}  // namespace rtrace::exporters
