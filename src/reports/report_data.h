// What `rtrace report` knows about a trace once it has seen all of it: totals, the peak, and
// one aggregate per (resource type, backtrace).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/records.h"
#include "reports/calling_context_tree.h"
#include "reports/checkpoint_profile.h"
#include "reports/pagemap_report.h"

namespace rtrace::reports {

// Allocation sizes in power-of-two buckets: bucket 0 holds size 0, bucket k sizes in
// [2^(k-1), 2^k).
inline constexpr std::size_t kHistogramBuckets = 65;
using SizeHistogram = std::array<std::uint64_t, kHistogramBuckets>;

struct TypeTotals {
  ResourceType type;
  std::uint64_t calls = 0;
  std::uint64_t allocations = 0;
  std::uint64_t releases = 0;
  std::uint64_t bytes_allocated = 0;
  std::uint64_t largest_allocation = 0;  // size of the biggest allocation
  std::uint64_t temporary = 0;           // released by the very next call of the trace
  // Releases of ids the trace never saw allocated (ids 0 and references left apart): in a trace
  // of an attached process, blocks allocated before the attach.
  std::uint64_t released_before_tracing = 0;
  // Releases of the null id (free(NULL), delete of nullptr): recorded, but they release nothing,
  // so they are counted here and never among `releases` (as memcheck does not count them).
  std::uint64_t null_releases = 0;
  std::uint64_t leaked_blocks = 0;
  std::uint64_t leaked_bytes = 0;
  std::uint64_t peak_bytes = 0;         // most bytes alive at once
  std::uint64_t peak_index = 0;         // the call that reached the peak
  std::uint32_t peak_timestamp_ms = 0;  // the monotonic clock's milliseconds, as the trace has it
  std::uint64_t peak_timestamp_ns = 0;  // the same in nanoseconds; 0: the trace has no times
  // With a range (--from/--to): what was allocated in it and is still alive at its end.
  std::uint64_t grown_blocks = 0;
  std::uint64_t grown_bytes = 0;
  SizeHistogram histogram{};
};

// One backtrace frame as the report knows it: where it lies (the module the trace's memory maps
// put it in, and its offset there, which survive address randomisation) and what the resolver
// named it (empty when it did not).
struct FrameDetail {
  Address address = 0;
  // The mapping's path (kept in ReportData::module_paths), else the symbol's module (a view of
  // `symbol.module`); may be empty. A view: most frames lie in a few modules, and a copy of the
  // path per distinct frame was an allocation each.
  std::string_view module{};
  std::optional<Address> offset{};  // from the start of the mapping holding the address
  Symbol symbol{};                  // where, and the calls that inlined it
};

// Each distinct frame of a trace, described once: a trace may hold millions of distinct
// backtraces over far fewer distinct frames, and every site points into this.
struct FrameDescription {
  std::string name{};  // as the text protocol would print the frame
  FrameDetail detail{};
};
// A deque: descriptions keep their addresses as more are added.
using FrameDescriptions = std::deque<FrameDescription>;

// A backtrace as text, innermost frame first: views of FrameDescription::name.
using FrameNames = std::vector<std::string_view>;

// Everything allocated from one backtrace, of one resource type.
struct SiteStats {
  std::uint32_t type = 0;
  // The backtrace: its node in ReportData::tree (ReportData::frame_names and frame_details give
  // its frames). A node, not a copy of the frames: a trace of a million distinct backtraces has
  // a million sites.
  CallingContextTree::NodeId node = CallingContextTree::kRoot;
  std::uint64_t allocations = 0;
  std::uint64_t bytes_allocated = 0;
  std::uint64_t temporary = 0;
  std::uint64_t leaked_blocks = 0;
  std::uint64_t leaked_bytes = 0;
  std::uint64_t peak_bytes = 0;    // alive from here when its type reached its peak
  std::uint64_t grown_blocks = 0;  // with a range: allocated in it and alive at its end
  std::uint64_t grown_bytes = 0;
  std::uint64_t first_index = 0;
  bool suppressed = false;  // its leaks match a suppression
};

// Blocks released by a function of another family than the one that allocated them (`new[]`
// freed by `free` or `delete`, `malloc` freed by `delete`, ...), one entry per allocating
// backtrace, allocator, releasing function and release backtrace.
struct MismatchedRelease {
  std::size_t site = 0;  // index in ReportData::sites: where the blocks were allocated
  std::string allocated_by{};
  std::string released_by{};
  FrameNames release_frame_names{};  // empty when the trace has no free backtraces
  std::uint64_t blocks = 0;
  std::uint64_t bytes = 0;
};

// The memory blocks one allocator handed out (allocator_family.h: "malloc", "operator new",
// "mimalloc", "jemalloc", "tcmalloc"), and those still alive at the end of the trace.
struct AllocatorTotals {
  std::string name;
  std::uint64_t allocations = 0;
  std::uint64_t bytes_allocated = 0;
  std::uint64_t leaked_blocks = 0;
  std::uint64_t leaked_bytes = 0;
};

// A release of an id that is not alive, as memcheck's "Invalid free() / delete / delete[] /
// realloc()": released again (a double free) or never allocated (a stack address, a pointer
// into a block). One entry per releasing function, resource type and backtraces: a loop's
// double free is one entry counted many times.
struct InvalidRelease {
  enum class Cause : std::uint8_t {
    AlreadyReleased,  // allocated, released, released again
    NeverAllocated,   // the trace never saw it allocated
  };
  Cause cause = Cause::NeverAllocated;
  std::uint32_t type = 0;  // the resource type
  std::string released_by{};
  Address id = 0;                    // the first occurrence's
  std::uint64_t first_call = 0;      // its call index
  std::uint64_t count = 0;           // occurrences
  FrameNames release_frame_names{};  // empty when the trace has no release backtraces
  // A double free's earlier release and the allocation it ended (AlreadyReleased only).
  FrameNames first_release_frame_names{};
  std::optional<std::size_t> site{};  // index in ReportData::sites: where the block was allocated
  std::uint64_t size = 0;             // the block's, when `site` is known
};

// What one suppression rule took from the leaks.
struct SuppressionHit {
  std::size_t rule = 0;  // its index among the rules applied
  std::string pattern;   // after `leak:`
  std::string source;    // the file it came from
  std::size_t line = 0;
  std::uint64_t blocks = 0;
  std::uint64_t bytes = 0;
};

// The leak check's totals (rtrace record --leak-check): blocks and bytes of each kind, by
// LeakKind value (index 0 unused), and those of suppressed backtraces apart, as valgrind's
// LEAK SUMMARY counts them.
struct LeakKindTotals {
  struct Count {
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
  };
  std::array<Count, 5> kinds{};
  Count suppressed;
  // By kind, the allocation sites of its blocks (`site`: the index in ReportData::sites), most
  // bytes first, as valgrind's loss records; suppressed sites are not among them.
  struct SiteCount {
    std::size_t site = 0;
    Count count;
  };
  std::array<std::vector<SiteCount>, 5> sites{};
};

// The stretch of the trace a report covers (rtrace report --from/--to), when it covers one:
// its counts (calls, allocations, bytes allocated, temporaries, releases, the peak) are those of
// the calls inside it, what is "leaked" is what is alive at its end (allocated before it or in
// it), and the grown figures what was allocated in it and is still alive at its end.
struct ReportRange {
  std::string description;  // as the command line gave it: "from 2.5 s to call 1200"
  std::optional<std::uint64_t> first_call{};  // the first call inside (none: no call is)
  std::optional<std::uint64_t> last_call{};
};

struct ReportData {
  std::string process;
  std::uint32_t pid = 0;
  std::optional<CommandLine> command_line;  // from rtrace's tracer only (RCMD)
  std::optional<TraceEnd> end;              // how the trace ended, when the tracer said so
  // The tracer that wrote the trace ends every trace with a TraceEnd record and this one has
  // none: the process died without closing it (SIGKILL) and the calls stop short.
  bool incomplete = false;
  // The tracer was attached to the running process (rtrace record -p): what it allocated before
  // is not in the trace, and releases of it are counted apart.
  bool attached = false;
  // A sampled trace's interval (rtrace record --sample-bytes): the memory type's counts and bytes
  // are estimates (model/sampling.h).
  std::optional<std::uint64_t> sample_bytes;
  std::uint64_t calls = 0;
  std::optional<ReportRange> range;  // the whole trace when absent
  // The earliest timestamp of the calls (none without times): times are shown since then.
  std::optional<std::uint64_t> start_ns;
  std::vector<TypeTotals> types;  // registry order
  std::vector<SiteStats> sites;   // in order of first allocation
  // The sites' backtraces; shared by copies.
  std::shared_ptr<const CallingContextTree> tree = std::make_shared<CallingContextTree>();
  // Each distinct frame of the tree described once, by its index there (what the frame names
  // and details point to); shared by copies.
  std::shared_ptr<const FrameDescriptions> frame_descriptions =
      std::make_shared<FrameDescriptions>();
  // What the frame details' modules point to; shared by copies.
  std::shared_ptr<const std::deque<std::string>> module_paths;
  std::uint64_t suppressed_blocks = 0;
  std::uint64_t suppressed_bytes = 0;
  std::vector<SuppressionHit> suppression_hits;  // the rules that matched, most bytes first
  std::vector<CheckpointStats> checkpoints;      // calls that neither allocate nor release
  std::optional<HeapInfo> heap;                  // the trace's last heap statistics (HINF), if any
  std::vector<MismatchedRelease> mismatched_releases;  // most blocks first
  // By allocator, in allocator_family.h's order; empty unless some block came from the own
  // functions of mimalloc, jemalloc or tcmalloc (the other traces say nothing new by it).
  std::vector<AllocatorTotals> allocators;
  std::vector<InvalidRelease> invalid_releases;  // in order of first occurrence
  std::vector<Attachment> attachments;           // the trace's FILE packets, in order
  // The pagemap module's attachments, read from beside the trace (by whoever knows where the
  // trace is: read_pagemap_attachments); none when the trace has none.
  std::optional<PagemapSummary> pagemap;
  // Null when the trace holds no leak check ("kinds unknown").
  std::optional<LeakKindTotals> leak_kinds;

  // A site's backtrace as text, innermost frame first.
  FrameNames frame_names(const SiteStats& site) const;
  // A site's frames as the report knows them, innermost first.
  std::vector<const FrameDetail*> frame_details(const SiteStats& site) const;
};

}  // namespace rtrace::reports
