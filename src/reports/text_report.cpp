#include "reports/text_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "model/command_line.h"
#include "pipeline/completeness_check.h"
#include "reports/checkpoint_text.h"
#include "reports/human_units.h"
#include "reports/resource_unit.h"
#include "reports/sites_text.h"
#include "reports/trace_ending.h"

namespace rtrace::reports {
namespace {

// "[HH:MM:SS.mmm]" of the monotonic millisecond clock modulo 24 hours, as the text protocol.
std::string clock_text(std::uint32_t ms) {
  const std::uint32_t day = ms % (24U * 3600U * 1000U);
  return fmt::format(" [{:02}:{:02}:{:02}.{:03}]", day / 3600000, day / 60000 % 60, day / 1000 % 60,
                     day % 1000);
}

void append_frames(std::string& out, const FrameNames& frames, const RenderOptions& options) {
  if (frames.empty()) {
    out += "      (no backtrace)\n";
    return;
  }
  for (const std::string_view frame : frames) {
    fmt::format_to(std::back_inserter(out), "      {}\n", shown_name(frame, options));
  }
}

// What the trace says about the process beyond its calls: its command line, how the trace
// ended, its memory.
void append_process(std::string& out, const ReportData& data) {
  if (data.incomplete) {
    fmt::format_to(std::back_inserter(out), "{}\n", kIncompleteTrace);
  }
  if (data.command_line) {
    fmt::format_to(std::back_inserter(out), "command line: {}{}\n",
                   quote_command_line(data.command_line->arguments),
                   data.command_line->cut ? " ... (cut)" : "");
  } else if (!data.process.empty()) {
    // sp-rtrace's process information names the program (argv[0]); its arguments are not sent.
    fmt::format_to(std::back_inserter(out), "command line: {} (arguments are not recorded)\n",
                   data.process);
  } else {
    out += "command line: not recorded\n";
  }
  if (data.end) {
    fmt::format_to(std::back_inserter(out), "trace ended by: {}\n", end_description(*data.end));
    fmt::format_to(std::back_inserter(out), "peak RSS: {} (RSS at the end: {})\n",
                   human_bytes(data.end->peak_rss_bytes), human_bytes(data.end->rss_bytes));
  } else {
    out += data.incomplete ? "peak RSS: not recorded (the trace broke off before its end record)\n"
                           : "peak RSS: not recorded (only rtrace's tracer records it)\n";
  }
  if (!data.heap) {
    out += "heap statistics: none in the trace\n";
    return;
  }
  const HeapInfo& h = *data.heap;
  fmt::format_to(std::back_inserter(out),
                 "heap when tracing stopped: {} in use, {} free, arena {}, {} in {} mmapped "
                 "region(s)\n",
                 human_bytes(h.uordblks), human_bytes(h.fordblks), human_bytes(h.arena),
                 human_bytes(h.hblkhd), h.hblks);
}

void append_totals(std::string& out, const ReportData& data) {
  out += "TOTALS\n";
  std::string unused;  // the types without a call, named on one line
  for (const TypeTotals& t : data.types) {
    if (t.calls == 0) {
      unused += unused.empty() ? t.type.type : ", " + t.type.type;
      continue;
    }
    const ResourceUnit unit = resource_unit(t);
    if (unit.transfers) {
      fmt::format_to(std::back_inserter(out), "  {} ({}): {} calls, {} of {} bytes\n", t.type.type,
                     t.type.description, t.calls, unit.count(t.allocations), t.bytes_allocated);
      continue;
    }
    const std::string weight = unit.sized ? fmt::format(" of {} bytes", t.bytes_allocated) : "";
    fmt::format_to(std::back_inserter(out),
                   "  {} ({}): {} calls, {} allocations{}, {} releases, {} temporary\n",
                   t.type.type, t.type.description, t.calls, t.allocations, weight, t.releases,
                   t.temporary);
  }
  if (!unused.empty()) {
    fmt::format_to(std::back_inserter(out), "  no calls: {}\n", unused);
  }
}

void append_peaks(std::string& out, const ReportData& data, const RenderOptions& options) {
  out += "\nPEAK CONSUMPTION\n";
  for (const TypeTotals& t : data.types) {
    // A type counted, not weighed, has size 1 per resource: its "bytes" are resources.
    const ResourceUnit unit = resource_unit(t);
    if (t.calls == 0) {
      continue;  // named once, in TOTALS
    }
    if (unit.transfers) {
      fmt::format_to(std::back_inserter(out), "  {}: transfers, nothing held\n", t.type.type);
      continue;
    }
    if (t.peak_bytes == 0) {
      fmt::format_to(std::back_inserter(out), "  {}: nothing allocated\n", t.type.type);
      continue;
    }
    const auto amount = [&](std::uint64_t bytes) {
      return unit.sized ? fmt::format("{} bytes", bytes) : unit.count(bytes);
    };
    fmt::format_to(std::back_inserter(out), "  {}: {} alive after call {}{}\n", t.type.type,
                   amount(t.peak_bytes), t.peak_index,
                   t.peak_timestamp_ms == 0 ? "" : clock_text(t.peak_timestamp_ms));
    const std::uint32_t type = t.type.id == 0 ? 1 : t.type.id;
    for (const SiteStats* site : peak_sites(data, type, options.top)) {
      fmt::format_to(std::back_inserter(out), "    {} held from:\n", amount(site->peak_bytes));
      append_frames(out, site->frame_names, options);
    }
  }
}

void append_leaks(std::string& out, const ReportData& data, const RenderOptions& options) {
  out += ended_by_toggle(data)
             ? "\nALIVE WHEN TRACING STOPPED (tracing was toggled off: not known to be leaks)\n"
             : "\nLEAKS\n";
  for (const TypeTotals& t : data.types) {
    const ResourceUnit unit = resource_unit(t);
    if (t.calls == 0) {
      continue;
    }
    if (unit.transfers) {
      fmt::format_to(std::back_inserter(out), "  {}: transfers, never leaks\n", t.type.type);
      continue;
    }
    fmt::format_to(std::back_inserter(out), "  {}: {} {}{}\n", t.type.type,
                   unit.count(t.leaked_blocks), leak_wording(data),
                   unit.sized ? fmt::format(", {} bytes", t.leaked_bytes) : "");
  }
  if (data.suppressed_blocks > 0) {
    fmt::format_to(std::back_inserter(out), "  suppressed: {} block(s), {} bytes\n",
                   data.suppressed_blocks, data.suppressed_bytes);
  }
  for (const SiteStats* site : leak_sites(data, options.top)) {
    const ResourceUnit unit = site_unit(data, *site);
    fmt::format_to(std::back_inserter(out), "    {}{} of {} from:\n",
                   unit.sized ? fmt::format("{} bytes in ", site->leaked_bytes) : "",
                   unit.count(site->leaked_blocks), site_type_name(data, *site));
    append_frames(out, site->frame_names, options);
  }
}

void append_allocating(std::string& out, const ReportData& data, const RenderOptions& options) {
  out += "\nMOST ALLOCATING BACKTRACES\n";
  for (const SiteStats* site : allocating_sites(data, options.top)) {
    const ResourceUnit unit = site_unit(data, *site);
    const std::string weight = unit.sized ? fmt::format(" of {} bytes", site->bytes_allocated) : "";
    fmt::format_to(std::back_inserter(out), "    {} {}{} ({}) from:\n", site->allocations,
                   unit.transfers ? "transfers" : "allocations", weight,
                   site_type_name(data, *site));
    append_frames(out, site->frame_names, options);
  }
}

void append_temporary(std::string& out, const ReportData& data, const RenderOptions& options) {
  out += "\nTEMPORARY ALLOCATIONS (released by the very next call)\n";
  for (const SiteStats* site : temporary_sites(data, options.top)) {
    fmt::format_to(std::back_inserter(out), "    {} of {} allocations ({}) from:\n",
                   site->temporary, site->allocations, site_type_name(data, *site));
    append_frames(out, site->frame_names, options);
  }
}

void append_histogram(std::string& out, const ReportData& data) {
  out += "\nALLOCATION SIZES\n";
  for (const TypeTotals& t : data.types) {
    if (t.allocations == 0 || !resource_unit(t).sized) {
      continue;  // a type counted, not weighed, has one size
    }
    fmt::format_to(std::back_inserter(out), "  {}:\n", t.type.type);
    const std::uint64_t most = *std::ranges::max_element(t.histogram);
    for (std::size_t bucket = 0; bucket < t.histogram.size(); ++bucket) {
      const std::uint64_t count = t.histogram[bucket];
      if (count == 0) {
        continue;
      }
      const auto bar = static_cast<std::size_t>((count * 40 + most - 1) / most);
      fmt::format_to(std::back_inserter(out), "    {:>20} {:>10} {}\n",
                     fmt::format("{}-{}", bucket_low(bucket), bucket_high(bucket)), count,
                     std::string(bar, '#'));
    }
  }
}

// A type counted, not weighed (descriptors, streams: every size is 1), grows in resources.
void append_type_growth(std::string& out, const TypeGrowth& t) {
  const Growth& g = t.growth;
  if (!t.unit.sized) {
    fmt::format_to(std::back_inserter(out), "  {}: {:+} allocations, {:+} leaked {}(s)\n", t.type,
                   g.allocations, g.leaked_blocks, t.unit.noun);
    return;
  }
  fmt::format_to(std::back_inserter(out),
                 "  {}: {:+} allocations, {:+} bytes allocated, {:+} leaked blocks, {:+} leaked "
                 "bytes, {:+} peak bytes\n",
                 t.type, g.allocations, g.bytes_allocated, g.leaked_blocks, g.leaked_bytes,
                 g.peak_bytes);
}

void append_site_growth(std::string& out, const SiteGrowth& site, const RenderOptions& options) {
  const Growth& g = site.growth;
  if (!site.unit.sized) {
    fmt::format_to(std::back_inserter(out),
                   "    {:+} leaked {}(s) in {:+} allocations ({}) from:\n", g.leaked_blocks,
                   site.unit.noun, g.allocations, site.type);
  } else {
    fmt::format_to(std::back_inserter(out),
                   "    {:+} leaked bytes, {:+} bytes allocated in {:+} allocations ({}) from:\n",
                   g.leaked_bytes, g.bytes_allocated, g.allocations, site.type);
  }
  append_frames(out, FrameNames(site.frame_names.begin(), site.frame_names.end()), options);
}

void append_diff(std::string& out, const ReportDiff& diff, const RenderOptions& options) {
  out += "\nGROWTH SINCE THE BASELINE\n";
  for (const TypeGrowth& t : diff.types) {
    append_type_growth(out, t);
  }
  const std::size_t shown = std::min(diff.sites.size(), options.top);
  for (std::size_t i = 0; i < shown; ++i) {
    append_site_growth(out, diff.sites[i], options);
  }
}

// The process a report is about: its program and pid, as far as the trace names them (mpatrol's
// and StackTrack's files do not name the program; mpatrol's has no pid either).
std::string process_label(const ReportData& data) {
  std::string label = data.process.empty() ? "(program not recorded)" : data.process;
  if (data.pid != 0) {
    fmt::format_to(std::back_inserter(label), " (pid {})", data.pid);
  }
  return label;
}

}  // namespace

std::string render_text(const ReportData& data, const ReportDiff* diff,
                        const RenderOptions& options) {
  std::string out = fmt::format("rtrace report: {}, {} calls\n", process_label(data), data.calls);
  append_process(out, data);
  out += '\n';
  append_totals(out, data);
  append_peaks(out, data, options);
  append_leaks(out, data, options);
  out += render_allocation_sites(data, options);
  out += render_mismatched_releases(data, options);
  append_allocating(out, data, options);
  append_temporary(out, data, options);
  append_histogram(out, data);
  out += render_checkpoints(data.checkpoints, options.top);
  if (data.pagemap) {
    out += render_pagemap_text(*data.pagemap);
  }
  if (diff != nullptr) {
    append_diff(out, *diff, options);
  }
  return out;
}

}  // namespace rtrace::reports
