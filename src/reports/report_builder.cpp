#include "reports/report_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <initializer_list>
#include <string>
#include <string_view>

#include "protocol/tracer_options.h"

namespace rtrace::reports {
namespace {

std::size_t histogram_bucket(std::uint64_t size) {
  return size == 0 ? 0 : static_cast<std::size_t>(std::bit_width(size));
}

}  // namespace

void ReportBuilder::attachment(const Attachment& attachment) {
  // A trace has a handful; a hostile one repeating them keeps one per name (the last).
  const auto same_name = [&](const Attachment& kept) { return kept.name == attachment.name; };
  std::erase_if(data_.attachments, same_name);
  data_.attachments.push_back(attachment);
}

void ReportBuilder::process(const ProcessInfo& info) {
  data_.process = info.name;
  data_.pid = info.pid;
  data_.command_line = info.command_line;
}

// The process's own end; a stream of several processes ends each of theirs.
void ReportBuilder::trace_end(const TraceEnd& end) {
  if (end.pid == data_.pid || end.pid == 0) {
    data_.end = end;
  }
}

ReportBuilder::TypeState& ReportBuilder::type_state(std::uint32_t type) {
  TypeState& state = state_of(type);
  if (!state.registered) {
    // A call of a type the registry never named: still counted, under a made-up name.
    state.registered = true;
    state.totals.type.id = type;
    state.totals.type.type = fmt::format("type{}", type);
    registry_order_.push_back(type);
  }
  return state;
}

void ReportBuilder::resource_type(const ResourceType& type) {
  const std::uint32_t id = effective_resource_type(type.id);
  live_.add_type(type);
  if (type.type == "memory") {
    memory_type_ = id;
  }
  TypeState& state = state_of(id);
  if (!state.registered) {
    registry_order_.push_back(id);
  }
  state.registered = true;
  state.totals.type = type;
}

void ReportBuilder::symbol(SymbolId id, const Symbol& symbol) {
  symbols_[id] = symbol;
  checkpoints_.symbol(id, symbol);
}

std::uint32_t ReportBuilder::site_for(std::uint32_t type, std::span<const Frame> frames,
                                      std::uint64_t index) {
  const CallingContextTree::NodeId node = tree_->intern(frames);
  if (node >= first_site_.size()) {
    first_site_.resize(std::max<std::size_t>(node + std::size_t{1}, first_site_.size() * 2),
                       kNoSite);
  }
  const auto add_site = [&] {
    sites_.push_back(Site{.type = type,
                          .node = node,
                          .first_index = index,
                          .at_peak_generation = state_of(type).generation});
    return static_cast<std::uint32_t>(sites_.size() - 1);
  };
  std::uint32_t& first = first_site_[node];
  if (first == kNoSite) {
    first = add_site();
    return first;
  }
  if (sites_[first].type == type) {
    return first;
  }
  // The backtrace allocated another type before: the sites of its other types are hashed.
  const std::uint64_t key = static_cast<std::uint64_t>(type) << 32 | node;
  const auto [found, added] = other_sites_.try_emplace(key, 0);
  if (added) {
    found->second = add_site();
  }
  return found->second;
}

void ReportBuilder::change_live(Site& site, std::int64_t blocks, std::int64_t bytes,
                                const Call& call) {
  TypeState& state = state_of(site.type);
  if (position_ != RangePosition::Inside) {
    // Before the range: what is alive is followed, but the range's peak is its own.
    site.live_blocks += static_cast<std::uint64_t>(blocks);
    site.live_bytes += static_cast<std::uint64_t>(bytes);
    state.live_bytes += static_cast<std::uint64_t>(bytes);
    return;
  }
  if (site.at_peak_generation != state.generation) {
    // Unchanged since the latest peak: its value then is its value now.
    site.at_peak = site.live_bytes;
    site.at_peak_generation = state.generation;
  }
  site.live_blocks += static_cast<std::uint64_t>(blocks);
  site.live_bytes += static_cast<std::uint64_t>(bytes);
  state.live_bytes += static_cast<std::uint64_t>(bytes);
  if (state.live_bytes > state.totals.peak_bytes) {
    state.totals.peak_bytes = state.live_bytes;
    state.totals.peak_index = call.index;
    state.totals.peak_timestamp_ms = call.timestamp_ns / 1'000'000;
    state.totals.peak_timestamp_ns = call.timestamp_ns;
    ++state.generation;
  }
}

SampleEstimate ReportBuilder::estimate(std::uint64_t size, std::uint32_t type,
                                       std::uint64_t key) const {
  if (sample_interval_ == 0 || type != memory_type_) {
    return {.count = 1, .bytes = size};
  }
  return estimate_sample(size, sample_interval_, key);
}

void ReportBuilder::allocate(const CallRecord& record, const ResourceKey& key) {
  TypeState& state = type_state(key.type);
  TypeTotals& totals = state.totals;
  const bool counted = position_ == RangePosition::Inside;
  // What this call stands for (itself, unless the trace is sampled) among the allocations, and
  // as a live block (keyed by what its release knows too: id and size).
  const SampleEstimate allocated = estimate(record.call.size, key.type, record.call.index);
  const SampleEstimate live = live_estimate(key, record.call.size);
  if (counted) {
    totals.allocations += allocated.count;
    totals.bytes_allocated += allocated.bytes;
    totals.largest_allocation =
        std::max<std::uint64_t>(totals.largest_allocation, record.call.size);
    totals.histogram[histogram_bucket(record.call.size)] += allocated.count;
  }

  if (freed_.size() != 0) {
    if (const std::size_t freed = freed_.find(key); freed != ResourceMap<FreedBlock>::kNone) {
      freed_.erase_at(freed);  // the id is a new block: releasing it again is no double free
    }
  }
  LiveBlock* block = live_.allocate(key);
  if (block == nullptr) {
    return;  // another reference to a live block of a refcounted type
  }
  // An id allocated again without a release in between starts a new block; the earlier one
  // stays counted as alive (a leak).
  const std::uint32_t site_index = site_for(key.type, record.frames, record.call.index);
  const bool in_range = counted && range_;
  *block = LiveBlock{.size = record.call.size,
                     .site = site_index,
                     .allocator = function_id(record.function) | (in_range ? kInRange : 0)};
  Site& site = sites_[site_index];
  if (counted) {
    site.allocations += allocated.count;
    site.bytes_allocated += allocated.bytes;
  }
  FunctionCount& by_function = function_counts_[allocator_of(*block)];
  by_function.allocations += counted ? 1 : 0;
  by_function.bytes_allocated += counted ? record.call.size : 0;
  ++by_function.live_blocks;
  by_function.live_bytes += record.call.size;
  if (in_range) {
    site.grown_blocks += live.count;
    site.grown_bytes += live.bytes;
  }
  change_live(site, static_cast<std::int64_t>(live.count), static_cast<std::int64_t>(live.bytes),
              record.call);
}

std::uint32_t ReportBuilder::function_id(std::string_view function) {
  // Calls come in long runs of the same few functions: the last one is compared before hashing.
  if (last_function_ < functions_.size() && functions_[last_function_] == function) {
    return last_function_;
  }
  const auto known = function_ids_.find(function);
  if (known != function_ids_.end()) {
    last_function_ = known->second;
    return known->second;
  }
  const auto id = static_cast<std::uint32_t>(functions_.size());
  functions_.emplace_back(function);
  function_families_.push_back(allocation_family(function));
  function_counts_.emplace_back();
  function_ids_.emplace(functions_.back(), id);
  last_function_ = id;
  return id;
}

void ReportBuilder::release(const CallRecord& record, const ResourceKey& key) {
  const bool counted = position_ == RangePosition::Inside;
  if (null_releasing(key)) {
    type_state(key.type).totals.null_releases += counted ? 1 : 0;  // releases nothing
    return;
  }
  const std::optional<LiveBlock> block = live_.release(key);
  if (!block) {
    type_state(key.type).totals.releases += counted ? 1 : 0;
    if (counted && key.id != 0 && !live_.contains(key)) {
      ++type_state(key.type).totals.released_before_tracing;
      note_invalid_release(record, key);
    }
    return;
  }
  note_released(record, key, *block);
  // What its allocation added as a live block, taken back.
  const SampleEstimate live = live_estimate(key, block->size);
  type_state(key.type).totals.releases += counted ? live.count : 0;
  Site& site = sites_[block->site];
  const bool allocated_in_range = (block->allocator & kInRange) != 0;
  if (allocated_in_range) {
    site.grown_blocks -= live.count;
    site.grown_bytes -= live.bytes;
  }
  // A temporary of a range: its allocation too is in it.
  if (just_allocated(record.call) == key && counted && (!range_ || allocated_in_range)) {
    site.temporary += live.count;
    state_of(key.type).totals.temporary += live.count;
  }
  change_live(site, -static_cast<std::int64_t>(live.count), -static_cast<std::int64_t>(live.bytes),
              record.call);
  const std::uint32_t allocator = allocator_of(*block);
  --function_counts_[allocator].live_blocks;
  function_counts_[allocator].live_bytes -= block->size;
  if (counted && mismatched(function_families_[allocator], release_family(record.function))) {
    MismatchCount& count = mismatches_[{block->site, allocator, function_id(record.function),
                                        tree_->intern(record.frames)}];
    count.blocks += live.count;
    count.bytes += live.bytes;
  }
}

void ReportBuilder::module(const ModuleInfo& module) {
  data_.attached = data_.attached || module.name == tracer_options::kAttachModuleName;
  if (const std::optional<std::uint64_t> interval = sampling_interval(module.name)) {
    sample_interval_ = *interval;
    data_.sample_bytes = interval;
  }
}

void ReportBuilder::set_range(const CallRange& range) {
  range_.emplace(range);
  data_.range = ReportRange{.description = range.describe()};
}

void ReportBuilder::call(const CallRecord& record) {
  if (range_) {
    position_ = range_->place(record.call);
    if (position_ == RangePosition::After) {
      return;  // the report stops at the range's end
    }
    if (position_ == RangePosition::Inside) {
      data_.range->first_call = data_.range->first_call.value_or(record.call.index);
      data_.range->last_call = record.call.index;
    }
  }
  const ResourceKey key = resource_key(record.call);
  if (position_ != RangePosition::Inside) {
    // Before the range: only what stays alive into it.
    if (record.call.kind == CallKind::Alloc) {
      allocate(record, key);
      just_allocated(record.call) = key;
    } else if (record.call.kind == CallKind::Free) {
      release(record, key);
      just_allocated(record.call).reset();
    } else {
      just_allocated(record.call).reset();
    }
    return;
  }
  ++data_.calls;
  // The earliest time, not the first call's: threads' timestamps interleave a little out of
  // order, and no time of the report must come before its start.
  if (record.call.timestamp_ns != 0 &&
      (!data_.start_ns || record.call.timestamp_ns < *data_.start_ns)) {
    data_.start_ns = record.call.timestamp_ns;
  }
  checkpoints_.call(record);
  ++type_state(key.type).totals.calls;
  switch (record.call.kind) {
    case CallKind::Alloc:
      allocate(record, key);
      just_allocated(record.call) = key;
      return;
    case CallKind::Free:
      release(record, key);
      break;
    case CallKind::Other:
    case CallKind::Enter:
    case CallKind::Exit:
      break;
  }
  just_allocated(record.call).reset();
}

std::optional<ResourceKey>& ReportBuilder::just_allocated(const Call& call) {
  const ThreadKey thread{call.pid, call.thread};
  if (last_thread_call_ == nullptr || thread != last_thread_) {
    last_thread_ = thread;
    last_thread_call_ = &just_allocated_[thread];
  }
  return *last_thread_call_;
}

const Symbol* ReportBuilder::symbol_of(const Frame& frame) const {
  const auto known = symbols_.find(frame.symbol);
  return known == symbols_.end() ? nullptr : &known->second;
}

const Mapping* ReportBuilder::mapping_of(Address address) const {
  // The latest mapping wins: libraries come and go, the report describes the end state.
  for (auto m = mappings_.rbegin(); m != mappings_.rend(); ++m) {
    if (address >= m->from && address < m->to) {
      return &*m;
    }
  }
  return nullptr;
}

// A mapping's path, copied once into the report's module paths at its first use.
std::string_view ReportBuilder::path_of(const Mapping& mapping) {
  const auto index = static_cast<std::size_t>(&mapping - mappings_.data());
  if (mapping_paths_.size() < mappings_.size()) {
    mapping_paths_.resize(mappings_.size(), nullptr);
  }
  if (mapping_paths_[index] == nullptr) {
    mapping_paths_[index] = &module_paths_->emplace_back(mapping.path);
  }
  return *mapping_paths_[index];
}

// Fills `detail` in place (it lives in the description deque): every distinct frame of a trace
// is described, and building a FrameDetail to move it there moved each of its strings again.
void ReportBuilder::fill_detail(const Frame& frame, FrameDetail& detail) {
  detail.address = frame.address;
  const Symbol* s = symbol_of(frame);
  if (s != nullptr) {
    detail.symbol = *s;
  }
  if (const Mapping* m = frame.address == 0 ? nullptr : mapping_of(frame.address)) {
    detail.module = path_of(*m);
    detail.offset = frame.address - m->from;
  } else if (s != nullptr) {
    detail.module = detail.symbol.module;
  }
}

namespace {

// `0x<address>`, as fmt's "{:#x}" prints it, in a buffer of the caller's (18 characters do not
// fit a short string: as a std::string it was an allocation of its own).
struct HexAddress {
  std::array<char, 2 + 16> text{'0', 'x'};
  std::size_t size = 0;
  explicit HexAddress(Address address)
      : size(static_cast<std::size_t>(
            std::to_chars(text.data() + 2, text.data() + text.size(), address, 16).ptr -
            text.data())) {}
  std::string_view view() const { return {text.data(), size}; }
};

// `head` followed by each of `tails`, in one allocation.
std::string joined(std::string_view head, std::initializer_list<std::string_view> tails) {
  std::size_t size = head.size();
  for (const std::string_view tail : tails) {
    size += tail.size();
  }
  std::string text;
  text.reserve(size);
  text += head;
  for (const std::string_view tail : tails) {
    text += tail;
  }
  return text;
}

}  // namespace

// A frame as a reader of the report wants it: the address, then the function and where it is.
// Put together by hand rather than by fmt::format: every distinct frame of the trace is named
// (tens of thousands in a large trace), and formatting them was a fifth of `rtrace report`.
std::string ReportBuilder::frame_name(const Frame& frame) const {
  const HexAddress address(frame.address);
  if (const Symbol* s = symbol_of(frame)) {
    if (s->unknown()) {
      return joined(address.view(), {" in ??"});
    }
    const std::string function = s->where.qualified_name();
    const std::string_view space = function.empty() ? "" : " ";
    if (!s->where.file.empty()) {
      if (s->where.line != 0) {
        const std::string line = std::to_string(s->where.line);
        return joined(address.view(), {space, function, " at ", s->where.file, ":", line});
      }
      return joined(address.view(), {space, function, " at ", s->where.file});
    }
    if (!s->module.empty()) {
      return joined(address.view(), {space, function, " from ", s->module});
    }
    return joined(address.view(), {space, function});
  }
  if (const Mapping* m = mapping_of(frame.address)) {
    return joined(address.view(), {" in ", m->path});
  }
  return std::string(address.view());
}

void ReportBuilder::describe_frames() {
  for (std::uint32_t index = 0; index < tree_->frame_count(); ++index) {
    const Frame& frame = tree_->frame(index);
    FrameDescription& description = descriptions_->emplace_back();
    description.name = frame_name(frame);
    fill_detail(frame, description.detail);
  }
}

// The first rule a frame matches, innermost frame first (as LSan credits its rules): by what
// the frame's symbol says, else by the module the memory maps put it in.
std::optional<std::size_t> ReportBuilder::suppressing_rule(CallingContextTree::NodeId node) const {
  if (suppressions_ == nullptr || suppressions_->empty()) {
    return std::nullopt;
  }
  for (; node != CallingContextTree::kRoot; node = tree_->parent(node)) {
    const Frame& frame = tree_->frame(tree_->frame_index(node));
    if (const Symbol* s = symbol_of(frame)) {
      if (const std::optional<std::size_t> rule = suppressions_->match_symbol(*s)) {
        return rule;
      }
    }
    if (const Mapping* m = mapping_of(frame.address)) {
      if (const std::optional<std::size_t> rule =
              suppressions_->match(SuppressionFrame{.module = m->path})) {
        return rule;
      }
    }
  }
  return std::nullopt;
}

void ReportBuilder::count_suppressed(std::size_t rule, const SiteStats& stats) {
  data_.suppressed_blocks += stats.leaked_blocks;
  data_.suppressed_bytes += stats.leaked_bytes;
  const SuppressionRule& matched = suppressions_->rules()[rule];
  auto hit = std::ranges::find_if(data_.suppression_hits,
                                  [&](const SuppressionHit& h) { return h.rule == rule; });
  if (hit == data_.suppression_hits.end()) {
    hit = data_.suppression_hits.insert(
        data_.suppression_hits.end(),
        {.rule = rule, .pattern = matched.pattern, .source = matched.source, .line = matched.line});
  }
  hit->blocks += stats.leaked_blocks;
  hit->bytes += stats.leaked_bytes;
}

void ReportBuilder::finish() {
  data_.incomplete = data_.command_line.has_value() && !data_.end.has_value();
  for (const std::uint32_t id : registry_order_) {
    TypeState& state = types_[id];
    data_.types.push_back(state.totals);
  }
  describe_frames();
  for (Site& site : sites_) {
    SiteStats stats{.type = site.type,
                    .node = site.node,
                    .allocations = site.allocations,
                    .bytes_allocated = site.bytes_allocated,
                    .temporary = site.temporary,
                    .leaked_blocks = site.live_blocks,
                    .leaked_bytes = site.live_bytes,
                    .peak_bytes = site.at_peak_generation == types_[site.type].generation
                                      ? site.at_peak
                                      : site.live_bytes,
                    .grown_blocks = site.grown_blocks,
                    .grown_bytes = site.grown_bytes,
                    .first_index = site.first_index};
    const std::optional<std::size_t> rule =
        stats.leaked_blocks > 0 ? suppressing_rule(site.node) : std::nullopt;
    stats.suppressed = rule.has_value();
    auto totals = std::ranges::find_if(data_.types, [&](const TypeTotals& t) {
      return effective_resource_type(t.type.id) == site.type;
    });
    if (rule) {
      count_suppressed(*rule, stats);
    } else if (totals != data_.types.end()) {
      totals->leaked_blocks += stats.leaked_blocks;
      totals->leaked_bytes += stats.leaked_bytes;
    }
    if (totals != data_.types.end()) {
      totals->grown_blocks += stats.grown_blocks;
      totals->grown_bytes += stats.grown_bytes;
    }
    data_.sites.push_back(std::move(stats));
  }
  data_.checkpoints = checkpoints_.result();
  finish_mismatches();
  finish_allocators();
  finish_invalid_releases();
  finish_leak_kinds();
  // Most bytes first; equal bytes in the rules' order.
  std::ranges::stable_sort(data_.suppression_hits,
                           [](const SuppressionHit& a, const SuppressionHit& b) {
                             return a.bytes != b.bytes ? a.bytes > b.bytes : a.rule < b.rule;
                           });
  data_.tree = tree_;
  data_.frame_descriptions = descriptions_;
  data_.module_paths = module_paths_;
  // The builder's per-call state is no longer needed; the report keeps the tree and the
  // descriptions.
  first_site_ = {};
  other_sites_ = {};
  sites_ = {};
}

void ReportBuilder::finish_allocators() {
  constexpr auto kFamilies = static_cast<std::size_t>(AllocatorFamily::Tcmalloc) + 1;
  std::array<AllocatorTotals, kFamilies> by_family{};
  bool other_library = false;
  for (std::size_t id = 0; id < function_counts_.size(); ++id) {
    const AllocatorFamily family = function_families_[id];
    const FunctionCount& count = function_counts_[id];
    if (family == AllocatorFamily::Unknown || count.allocations + count.live_blocks == 0) {
      continue;
    }
    AllocatorTotals& totals = by_family[static_cast<std::size_t>(family)];
    totals.allocations += count.allocations;
    totals.bytes_allocated += count.bytes_allocated;
    totals.leaked_blocks += count.live_blocks;
    totals.leaked_bytes += count.live_bytes;
    other_library = other_library || family == AllocatorFamily::Mimalloc ||
                    family == AllocatorFamily::Jemalloc || family == AllocatorFamily::Tcmalloc;
  }
  if (!other_library) {
    return;
  }
  for (std::size_t family = 0; family < kFamilies; ++family) {
    AllocatorTotals& totals = by_family[family];
    const std::string_view name = allocator_name(static_cast<AllocatorFamily>(family));
    if (name.empty() || totals.allocations + totals.leaked_blocks == 0) {
      continue;
    }
    // new and new[] are one allocator: the second adds to the first.
    if (!data_.allocators.empty() && data_.allocators.back().name == name) {
      AllocatorTotals& previous = data_.allocators.back();
      previous.allocations += totals.allocations;
      previous.bytes_allocated += totals.bytes_allocated;
      previous.leaked_blocks += totals.leaked_blocks;
      previous.leaked_bytes += totals.leaked_bytes;
      continue;
    }
    totals.name = std::string(name);
    data_.allocators.push_back(std::move(totals));
  }
}

void ReportBuilder::finish_mismatches() {
  for (const auto& [key, count] : mismatches_) {
    const auto& [site, allocator, releaser, backtrace] = key;
    MismatchedRelease mismatch{.site = site,
                               .allocated_by = functions_[allocator],
                               .released_by = functions_[releaser],
                               .blocks = count.blocks,
                               .bytes = count.bytes};
    tree_->for_each_frame(backtrace, [&](std::uint32_t frame) {
      mismatch.release_frame_names.emplace_back((*descriptions_)[frame].name);
    });
    data_.mismatched_releases.push_back(std::move(mismatch));
  }
  // Most blocks first; equal counts in order of the allocating site's first allocation.
  std::ranges::stable_sort(
      data_.mismatched_releases,
      [](const MismatchedRelease& a, const MismatchedRelease& b) { return a.blocks > b.blocks; });
}

}  // namespace rtrace::reports
