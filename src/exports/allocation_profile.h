// What the stack-based exports (folded, flamegraph, callgraph, massif, chrome) share: one
// aggregate per (resource type, backtrace), each type's live bytes over time and its peak.
//
// An export derives from AllocationProfile, lets it see the records (call the base methods when
// overriding them) and writes in finish() after settle(). What is alive follows the one rule of
// src/filters/live_resources.h, so the figures are those of `rtrace report`. Memory follows the
// distinct backtraces and the resources alive at once, never the number of calls.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "exports/timeline.h"
#include "filters/live_resources.h"
#include "model/backtrace_table.h"
#include "model/export_options.h"
#include "model/sampling.h"
#include "model/trace_sink.h"

namespace rtrace::exporters {

// What a stack weighs in a folded file, a flame graph or a call graph.
enum class Weight : std::uint8_t { Allocated, Leaked, Peak, Count };
// "allocated" (also ""), "leaked", "peak" or "count"; throws std::invalid_argument otherwise.
Weight parse_weight(std::string_view name);
// "bytes" or "allocations".
std::string_view weight_unit(Weight weight);

// Everything allocated from one backtrace, of one resource type.
struct Site {
  std::uint32_t type = 0;
  BacktraceId backtrace = 0;
  std::uint64_t allocations = 0;
  std::uint64_t bytes_allocated = 0;
  std::uint64_t live_blocks = 0;  // after settle(): leaked
  std::uint64_t live_bytes = 0;
  std::uint64_t peak_bytes = 0;  // after settle(): alive from here at its type's peak
  std::uint64_t peak_generation = 0;

  std::uint64_t weight(Weight w) const;
};

struct TypeProfile {
  ResourceType type;
  std::uint64_t live_bytes = 0;
  std::uint64_t live_blocks = 0;
  std::uint64_t peak_bytes = 0;
  std::uint64_t peak_blocks = 0;  // live blocks at the peak
  std::uint64_t peak_index = 0;   // the call that reached the peak
  std::uint64_t peak_time_ns = 0;
  std::uint64_t generation = 0;  // bumped at every new peak
  std::uint64_t allocations = 0;
  Timeline timeline;
};

class AllocationProfile : public TraceSink {
 public:
  // `with_sites` false: each type's figures and timeline only, no sites nor backtraces (for an
  // export that takes its backtraces from elsewhere: the HTML page, from the report's tree).
  explicit AllocationProfile(bool with_sites = true) : with_sites_(with_sites) {}

  void process(const ProcessInfo& info) override;
  void mapping(const Mapping& mapping) override { mappings_.push_back(mapping); }
  void resource_type(const ResourceType& type) override;
  void module(const ModuleInfo& module) override;
  void symbol(SymbolId id, const Symbol& symbol) override { symbols_[id] = symbol; }
  void call(const CallRecord& record) override;

  // What the trace built so far: for the exports, and the encoders they share (pprof's).
  const std::vector<Site>& sites() const { return sites_; }
  // Innermost first, as the trace has them.
  std::span<const Frame> frames(const Site& site) const {
    return backtraces_.frames(site.backtrace);
  }
  // The function's name; unresolved frames as "0xADDR in MODULE" (or the address alone).
  std::string frame_name(const Frame& frame) const;
  const Symbol* symbol_of(const Frame& frame) const;
  // The site's frame names, outermost caller first; "[no backtrace]" for an empty backtrace.
  std::vector<std::string> stack_names(const Site& site) const;
  // Types in the order the trace named them (or first used them).
  std::vector<const TypeProfile*> types() const;
  // The type an export about one type shows: `name`, or when empty the first type that
  // allocated anything (nullptr when none did). Throws std::invalid_argument for an unknown name.
  const TypeProfile* chosen_type(std::string_view name) const;

  // Every mapping the trace announced, in its order (repeats included).
  const std::vector<Mapping>& mappings() const { return mappings_; }
  // A sampled trace's interval (model/sampling.h), 0 otherwise: the memory type's figures are
  // then estimates, which the export should say.
  std::uint64_t sample_interval() const { return sample_interval_; }
  const std::string& process_name() const { return process_name_; }
  std::uint32_t pid() const { return pid_; }
  std::uint64_t first_time_ns() const { return first_time_ns_; }

 protected:
  // The time of a call: its timestamp, or the previous call's when it has none.
  std::uint64_t clock(const Call& call);
  // Whether the next calls' allocations count in the sites' allocations and bytes allocated
  // (they always count in what is alive): an export of a stretch of the trace follows the blocks
  // allocated before it without counting them as its own.
  void count_allocations(bool counting) { counting_ = counting; }
  // Call once at the start of finish(): fixes every site's value at its type's peak.
  void settle();
  // After every change of a type's live bytes, the sites' figures already changed: for an
  // export that samples the sites while the trace streams (massif's detailed snapshots).
  virtual void live_changed(const TypeProfile& /*type*/, const TimelinePoint& /*point*/) {}

 private:
  TypeProfile& type_profile(std::uint32_t id);
  std::uint32_t site_for(std::uint32_t type, std::span<const Frame> frames);
  void change_live(Site& site, std::int64_t blocks, std::int64_t bytes, const Call& call,
                   std::uint64_t time_ns);
  void change_type_live(TypeProfile& type, std::int64_t blocks, std::int64_t bytes,
                        const Call& call, std::uint64_t time_ns);

  SampleEstimate estimate(const Call& call, std::uint32_t type) const;

  // The estimate of its allocation (the block itself and its size, unless the trace is sampled).
  struct LiveBlock {
    std::uint32_t site = 0;
    std::uint32_t count = 1;
    std::uint64_t size = 0;
  };

  static constexpr std::uint32_t kNoSite = UINT32_MAX;
  bool with_sites_ = true;
  std::string process_name_;
  std::uint32_t pid_ = 0;
  std::uint64_t first_time_ns_ = 0;
  std::uint64_t last_time_ns_ = 0;
  bool timed_ = false;
  bool counting_ = true;
  std::uint32_t memory_type_ = 0;      // the type named "memory", the one the tracer samples
  std::uint64_t sample_interval_ = 0;  // 0: not sampled
  std::unordered_map<std::uint32_t, TypeProfile> types_;
  std::vector<std::uint32_t> type_order_;
  BacktraceTable backtraces_;
  std::unordered_map<std::uint64_t, std::uint32_t> site_of_;  // type << 32 | backtrace -> site
  std::vector<Site> sites_;
  LiveResources<LiveBlock> live_;
  std::unordered_map<SymbolId, Symbol> symbols_;
  std::vector<Mapping> mappings_;
};

// Human units: 512 B, 4.8 KiB, 1.2 MiB, 3.0 GiB.
std::string human_bytes(std::uint64_t bytes);
// `value` in the weight's unit: human bytes, or "12 allocations".
std::string human_weight(std::uint64_t value, Weight weight);
// Text safe inside XML/SVG/HTML elements and attributes.
std::string xml_escape(std::string_view text);

}  // namespace rtrace::exporters
