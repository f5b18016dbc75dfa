// The sink behind `rtrace report`: reads a whole trace (any format) and keeps only what the
// report needs: the resources alive at each moment, the backtraces as one calling-context tree
// (calling_context_tree.h) and one aggregate per (resource type, backtrace). Memory follows live
// resources plus the tree's nodes, never the call count.
//
// Peak: for each resource type the most bytes alive at once, and how much of it each backtrace
// held at that moment. Every site remembers its value at the latest peak lazily (when it next
// changes), so a new peak costs O(1) instead of a snapshot of every site.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "filters/live_resources.h"
#include "filters/resource_map.h"
#include "filters/suppression_rules.h"
#include "model/call_range.h"
#include "model/sampling.h"
#include "model/trace_sink.h"
#include "reports/allocator_family.h"
#include "reports/checkpoint_profile.h"
#include "reports/report_data.h"

namespace rtrace::reports {

class ReportBuilder final : public TraceSink {
 public:
  // `suppressions` (may be null): the leak suppressions whose blocks are counted apart.
  explicit ReportBuilder(std::shared_ptr<const SuppressionRules> suppressions = nullptr)
      : suppressions_(std::move(suppressions)) {}

  void process(const ProcessInfo& info) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override { mappings_.push_back(mapping); }
  void resource_type(const ResourceType& type) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void heap_info(const HeapInfo& info) override { data_.heap = info; }
  void trace_end(const TraceEnd& end) override;
  void leak_kinds(const LeakKinds& kinds) override;
  void attachment(const Attachment& attachment) override;
  void finish() override;

  // Reports on `range` of the trace only (ReportRange says what that means); before the first
  // call.
  void set_range(const CallRange& range);

  // The report; valid after finish().
  const ReportData& data() const { return data_; }
  // The report, moved out (the builder is done with): a report of millions of sites is not
  // copied.
  ReportData take_data() && { return std::move(data_); }

 private:
  struct Site {
    std::uint32_t type = 0;
    CallingContextTree::NodeId node = CallingContextTree::kRoot;
    std::uint64_t first_index = 0;
    std::uint64_t allocations = 0;
    std::uint64_t bytes_allocated = 0;
    std::uint64_t temporary = 0;
    std::uint64_t live_blocks = 0;
    std::uint64_t live_bytes = 0;
    std::uint64_t at_peak = 0;             // live_bytes at the type's latest peak, if
    std::uint64_t at_peak_generation = 0;  // this equals the type's generation
    std::uint64_t grown_blocks = 0;        // live blocks allocated in the range
    std::uint64_t grown_bytes = 0;
  };
  // 16 bytes (the size first, no padding): a million live blocks are a table of 40-byte slots.
  struct LiveBlock {
    std::uint64_t size = 0;
    std::uint32_t site = 0;
    // Interned name of the allocating function, kInRange set when the block was allocated in
    // the report's range (the 16 bytes stay 16).
    std::uint32_t allocator = 0;
  };
  static constexpr std::uint32_t kInRange = 1U << 31;
  static std::uint32_t allocator_of(const LiveBlock& block) { return block.allocator & ~kInRange; }
  // A mismatched release: (allocating site, allocator, releaser, release backtrace).
  using MismatchKey =
      std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, CallingContextTree::NodeId>;
  struct MismatchCount {
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
  };
  struct TypeState {
    TypeTotals totals;
    std::uint64_t live_bytes = 0;
    std::uint64_t generation = 0;  // bumped at every new peak
    bool registered = false;
  };

  // Calls come in long runs of one type: the last one is remembered (map nodes never move).
  TypeState& state_of(std::uint32_t type) {
    if (last_state_ == nullptr || last_type_ != type) {
      last_state_ = &types_[type];
      last_type_ = type;
    }
    return *last_state_;
  }
  // state_of, and a type the registry never named is counted under a made-up name.
  TypeState& type_state(std::uint32_t type);
  std::uint32_t site_for(std::uint32_t type, std::span<const Frame> frames, std::uint64_t index);
  void change_live(Site& site, std::int64_t blocks, std::int64_t bytes, const Call& call);
  // What an allocation of `size` bytes of `type` stands for (model/sampling.h): itself, unless
  // the trace is sampled and the type is memory, the one the tracer samples.
  SampleEstimate estimate(std::uint64_t size, std::uint32_t type, std::uint64_t key) const;
  // A live block's, the same at its allocation and its release.
  SampleEstimate live_estimate(const ResourceKey& key, std::uint64_t size) const {
    return estimate(size, key.type, key.id * 0x9e3779b97f4a7c15ULL ^ size);
  }
  void allocate(const CallRecord& record, const ResourceKey& key);
  void release(const CallRecord& record, const ResourceKey& key);
  std::uint32_t function_id(std::string_view function);
  void finish_mismatches();
  void finish_allocators();
  void fill_detail(const Frame& frame, FrameDetail& detail);
  std::string_view path_of(const Mapping& mapping);
  const Mapping* mapping_of(Address address) const;
  const Symbol* symbol_of(const Frame& frame) const;
  std::string frame_name(const Frame& frame) const;
  // Describes each distinct frame of the tree, in the order of its index there.
  void describe_frames();
  // The rule that suppresses the leaks of a backtrace, if any.
  std::optional<std::size_t> suppressing_rule(CallingContextTree::NodeId node) const;
  void count_suppressed(std::size_t rule, const SiteStats& stats);

  // The leak check's blocks, each with its kind, size and site (leak_kinds.cpp), counted at
  // finish() when the sites' suppressions are known.
  struct KindedBlock {
    LeakKind kind = LeakKind::Unknown;
    std::uint64_t size = 0;
    std::uint32_t site = 0;
  };
  std::optional<std::vector<KindedBlock>> kinded_blocks_;

  // Releases of ids that are not alive (invalid_releases.cpp): each released block of the memory
  // type is remembered until its id is allocated again, so that a second release of it is known
  // as a double free, with the block's site and the first release's backtrace.
  struct FreedBlock {
    std::uint64_t size = 0;
    std::uint32_t site = 0;
    CallingContextTree::NodeId release = CallingContextTree::kRoot;
  };
  ResourceMap<FreedBlock> freed_;
  // (cause, type, releasing function, release backtrace, first release backtrace, site + 1 or 0)
  using InvalidKey =
      std::tuple<InvalidRelease::Cause, std::uint32_t, std::uint32_t, CallingContextTree::NodeId,
                 CallingContextTree::NodeId, std::uint32_t>;
  struct InvalidCount {
    Address id = 0;
    std::uint64_t first_call = 0;
    std::uint64_t count = 0;
    std::uint64_t size = 0;
  };
  std::map<InvalidKey, InvalidCount> invalid_;
  bool null_releasing(const ResourceKey& key) const {
    return key.id == 0 && key.type == memory_type_;
  }
  void note_released(const CallRecord& record, const ResourceKey& key, const LiveBlock& block);
  void note_invalid_release(const CallRecord& record, const ResourceKey& key);
  void finish_invalid_releases();
  std::uint32_t memory_type_ = 0;      // the type named "memory", whose blocks the check classifies
  std::uint64_t sample_interval_ = 0;  // the trace's sampling (model/sampling.h); 0: none
  void finish_leak_kinds();

  std::shared_ptr<const SuppressionRules> suppressions_;
  ReportData data_;
  std::optional<CallRangeSelector> range_;          // none: the whole trace
  RangePosition position_ = RangePosition::Inside;  // of the current call
  // By resource type id: ids come from the input, so no table sized by them.
  std::unordered_map<std::uint32_t, TypeState> types_;
  std::uint32_t last_type_ = 0;
  TypeState* last_state_ = nullptr;  // types_[last_type_]
  std::vector<std::uint32_t> registry_order_;
  std::shared_ptr<CallingContextTree> tree_ = std::make_shared<CallingContextTree>();
  // The site of each backtrace's first allocating type, by node (most backtraces allocate one
  // type: no hash lookup per allocation), and the sites of its other types.
  static constexpr std::uint32_t kNoSite = UINT32_MAX;
  std::vector<std::uint32_t> first_site_;
  std::unordered_map<std::uint64_t, std::uint32_t> other_sites_;  // type << 32 | node -> site
  std::vector<Site> sites_;
  LiveResources<LiveBlock> live_;
  // Each thread's previous call, when it was an allocation (by process and thread: a temporary
  // is released by the next call of the thread that allocated it). An ordered map: thread ids
  // come from the input. Entries are never erased, so the last thread's stays where it is.
  using ThreadKey = std::pair<std::uint32_t, std::uint64_t>;
  std::map<ThreadKey, std::optional<ResourceKey>> just_allocated_;
  ThreadKey last_thread_;
  std::optional<ResourceKey>* last_thread_call_ = nullptr;  // just_allocated_[last_thread_]
  std::optional<ResourceKey>& just_allocated(const Call& call);
  std::unordered_map<SymbolId, Symbol> symbols_;
  CheckpointProfile checkpoints_;
  std::vector<Mapping> mappings_;
  // Allocating and releasing function names, interned: live blocks and mismatches hold ids.
  std::vector<std::string> functions_;
  std::vector<AllocatorFamily> function_families_;  // as allocator, by id
  // What each function allocated, and what of it is alive: by id.
  struct FunctionCount {
    std::uint64_t allocations = 0;
    std::uint64_t bytes_allocated = 0;
    std::uint64_t live_blocks = 0;
    std::uint64_t live_bytes = 0;
  };
  std::vector<FunctionCount> function_counts_;
  std::uint32_t last_function_ = UINT32_MAX;  // the id function_id() found last
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>{}(name);
    }
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> function_ids_;
  std::map<MismatchKey, MismatchCount> mismatches_;
  // By the tree's frame index.
  std::shared_ptr<FrameDescriptions> descriptions_ = std::make_shared<FrameDescriptions>();
  // The paths of the mappings frames lie in, copied at their first use (a deque: they keep their
  // addresses), and by index in mappings_ the copy made (null: none yet).
  std::shared_ptr<std::deque<std::string>> module_paths_ =
      std::make_shared<std::deque<std::string>>();
  std::vector<const std::string*> mapping_paths_;
};

}  // namespace rtrace::reports
