// The table of trace formats: what each is called, how it is recognised by its first bytes,
// how it is read into the model and (if it can be) written from it.
//
// Adding a format: a folder src/formats/<format>/ with its reader (and writer), a function that
// returns its TraceFormatInfo (see sprtrace_text/text_format.cpp), and ONE line in the table in
// format_registry.cpp. Nothing else in rtrace names formats: `rtrace process`, `resolve` and
// `report` read whatever the table recognises, and use a format's own fast paths (late maps, a
// leaks scan) where its entry declares them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "model/records.h"
#include "model/export_options.h"
#include "model/trace_sink.h"

namespace rtrace {

// What a format cannot hold, so that writing a trace in it and reading it back loses exactly
// these and nothing else (tests/formats/roundtrip_test.cpp holds every format to it).
enum Loss : std::uint32_t {
  kLosesNothing = 0,
  kLosesSymbols = 1U << 0,             // frames keep only their addresses
  kLosesHeapBlockRange = 1U << 1,      // heap info's lowest and highest block
  kLosesStartSubseconds = 1U << 2,     // the process start is kept to the second
  kLosesGroupsAndSummaries = 1U << 3,  // call groups and leak summaries (-c, -l make them again)
  kLosesNotes = 1U << 4,               // free-text notes
  kLosesOutputSettings = 1U << 5,      // the recorder's output settings
  kLosesThreads = 1U << 6,             // calls' thread ids
  kLosesSubmilliseconds = 1U << 7,     // timestamps are kept to the millisecond
  kLosesScopes = 1U << 8,              // enter and exit calls become "other" calls
  kLosesHistory = 1U << 9,             // the header's origin and applied stages
  kLosesCallIndices = 1U << 10,        // calls are numbered by their position in the file
  kLosesPartialSymbols = 1U << 11,     // a frame's module when it has a source file too, and a
                                       // line without a file (apitrace backtraces have both)
  kLosesUnknownDepth = 1U << 12,       // an unknown backtrace depth reads back as 0
  kLosesEndTime = 1U << 13,            // the end-of-trace record's wall-clock time and process
};

// Another reading of the same input from its start, or null when there is none (a pipe).
using ReadAgain = std::function<std::unique_ptr<InputStream>()>;

// A trace read by its format's leaks scan (TraceFormatInfo::scan_leaks): a first pass found the
// calls that may leak, so that reading decodes only those and what is not a call, and delivers
// what the general reader would deliver to the leaks stage of `rtrace process -l`.
class LeaksScanRead {
 public:
  LeaksScanRead() = default;
  LeaksScanRead(const LeaksScanRead&) = delete;
  LeaksScanRead& operator=(const LeaksScanRead&) = delete;
  virtual ~LeaksScanRead() = default;

  // The memory maps recorded after the first call (as TraceFormatInfo::late_maps gives them).
  virtual std::vector<Mapping> late_maps() const = 0;
  // Pushes the records into `sink` as TraceFormatInfo::read would for the stages of -l (warnings
  // at their offsets in the input), then calls sink.finish().
  virtual void read(TraceSink& sink, Diagnostics& diagnostics) const = 0;
  // Where the input ended, for a warning at its end.
  virtual std::uint64_t end_offset() const = 0;
};

struct TraceFormatInfo {
  std::string_view name;         // short, for options and messages: "text", "binary", "mpatrol"
  std::string_view description;  // "sp-rtrace text protocol"
  std::string_view suffix;       // of files written in this format: ".rtrace.txt"
  // True when `head` (up to the first 64 bytes of the input; fewer when it is shorter) starts
  // like this format. Formats are tried in table order.
  bool (*detect)(std::span<const std::uint8_t> head) = nullptr;
  // For a format some of whose files have no signature in their first bytes (apitrace's Brotli
  // container): whether `input` is in this format, judged from as many bytes as it needs to peek
  // at (never consumed). Asked only when no format's detect() matched; null: detect() says all.
  bool (*probe)(InputStream& input) = nullptr;
  // Pushes every record of `input` into `sink`, then calls sink.finish(), also when it throws
  // InputError for damaged input (after delivering everything before the damage). Null: the
  // format is recognised but not readable yet.
  void (*read)(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) = nullptr;
  // A writer of this format, or null when the format is read-only.
  std::unique_ptr<TraceSink> (*open_writer)(OutputStream& out,
                                            const ExportOptions& options) = nullptr;
  // For formats with a writer: what a trace loses when written in this format (Loss bits).
  std::uint32_t losses = kLosesNothing;
  // For a format that records memory maps after calls: those after the first call, read by a
  // pass over `input` (a second reading of the file, from its start) ahead of the reading proper,
  // so that they print before the calls (pipeline/late_maps_first.h); `read_again` opens one more
  // reading when the pass needs it. Null: the maps print where they arrive.
  std::vector<Mapping> (*late_maps)(InputStream& input, const ReadAgain& read_again) = nullptr;
  // A format's scan mode for `rtrace process -l`: a first pass over `input` that finds the calls
  // that may leak, and a reading of only those (see LeaksScanRead); null when it does not apply
  // to `input` (then `input` is read the general way, which reports whatever the scan refused),
  // also when the entry has none. `input` is not read meanwhile. With `show_progress`, the pass
  // draws the general reading's progress line.
  std::unique_ptr<LeaksScanRead> (*scan_leaks)(const InputStream& input,
                                               bool show_progress) = nullptr;
};

// Every format, in detection order.
std::span<const TraceFormatInfo> trace_formats();

// How many bytes detect() is shown.
inline constexpr std::size_t kDetectBytes = 64;

// The format `head` is in, or null (by detect() alone).
const TraceFormatInfo* detect_format(std::span<const std::uint8_t> head);
// The format `input` is in, or null: detect() on its first bytes, then the probes.
const TraceFormatInfo* detect_format(InputStream& input);
// The format called `name`, or null.
const TraceFormatInfo* find_format(std::string_view name);

// Detects the format of `input` and reads it into `sink` (see TraceFormatInfo::read). Throws
// InputError for empty, unknown or unreadable input; the sink then receives nothing at all (not
// even finish()): there is no trace to write.
const TraceFormatInfo& read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

// For detect(): whether `head` starts with `prefix`.
bool starts_with(std::span<const std::uint8_t> head, std::string_view prefix);

}  // namespace rtrace
