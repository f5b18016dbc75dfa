// What every output writer (a format's writer or an export) may be told.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model/call_range.h"

namespace rtrace {

struct ExportOptions {
  // Who we are, for formats that record the tool that wrote a trace (the text header's
  // origin= when the input does not name one).
  std::string origin;
  // When the input was in this same format, keep its layout (the order of the records before
  // the first call) instead of the format's usual order: rtrace resolve changes nothing but
  // names.
  bool keep_input_order = false;
  // Stack exports (folded, flamegraph, callgraph): what a stack weighs, "leaked", "allocated",
  // "peak" or "count"; empty: the export's default.
  std::string weight{};
  // Exports about one resource type (all but chrome): its name; empty: the first type that
  // allocates.
  std::string resource_type{};
  // Exports that take a time range (ExportInfo::time_range): the stretch of the trace they show.
  CallRange range{};
  // Where the trace's modules are found (a sysroot for a trace from another system; "" = /),
  // for exports that read the modules themselves.
  std::string root{};
  // massif: at most this many snapshots (--max-snapshots), every how many one is detailed
  // (--detailed-freq), and the share of a snapshot's bytes below which a tree's entries are
  // summed into one line (--threshold, in percent); massif's own defaults.
  std::size_t max_snapshots = 100;
  std::size_t detailed_freq = 10;
  double threshold_percent = 1.0;
  // chrome: write at most this many call events and say how many were left out (0: all).
  std::uint64_t max_events = 0;
};

}  // namespace rtrace
