// The table of trace formats: what each is called, how it is recognised by its first bytes,
// how it is read into the model and (if it can be) written from it.
//
// Adding a format: a folder src/formats/<format>/ with its reader (and writer), a function that
// returns its TraceFormatInfo (see sprtrace_text/text_format.cpp), and ONE line in the table in
// format_registry.cpp. Nothing else in rtrace names formats: `rtrace process`, `resolve` and
// `report` read whatever the table recognises.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "pipeline/export_options.h"
#include "pipeline/trace_sink.h"

namespace rtrace {

struct TraceFormatInfo {
  std::string_view name;         // short, for options and messages: "text", "binary", "mpatrol"
  std::string_view description;  // "sp-rtrace text protocol"
  std::string_view suffix;       // of files written in this format: ".rtrace.txt"
  // True when `head` (up to the first 64 bytes of the input; fewer when it is shorter) starts
  // like this format. Formats are tried in table order.
  bool (*detect)(std::span<const std::uint8_t> head) = nullptr;
  // Pushes every record of `input` into `sink`, then calls sink.finish(), also when it throws
  // InputError for damaged input (after delivering everything before the damage). Null: the
  // format is recognised but not readable yet.
  void (*read)(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) = nullptr;
  // A writer of this format, or null when the format is read-only.
  std::unique_ptr<TraceSink> (*open_writer)(OutputStream& out,
                                            const ExportOptions& options) = nullptr;
};

// Every format, in detection order.
std::span<const TraceFormatInfo> trace_formats();

// How many bytes detect() is shown.
inline constexpr std::size_t kDetectBytes = 64;

// The format `head` is in, or null.
const TraceFormatInfo* detect_format(std::span<const std::uint8_t> head);
// The format called `name`, or null.
const TraceFormatInfo* find_format(std::string_view name);

// Detects the format of `input` and reads it into `sink` (see TraceFormatInfo::read). Throws
// InputError for empty, unknown or unreadable input; the sink then receives nothing at all (not
// even finish()): there is no trace to write.
const TraceFormatInfo& read_trace(InputStream& input, TraceSink& sink, Diagnostics& diagnostics);

// For detect(): whether `head` starts with `prefix`.
bool starts_with(std::span<const std::uint8_t> head, std::string_view prefix);

}  // namespace rtrace
