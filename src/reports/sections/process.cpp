// The process a report is about: its program and pid, its command line, how the trace ended,
// its memory (peak RSS, the heap's last statistics in the text), whether its memory figures are
// estimates of a sampled trace, and the number of calls.
#include <fmt/format.h>

#include <iterator>

#include "model/command_line.h"
#include "model/sampling.h"
#include "pipeline/completeness_check.h"
#include "reports/human_units.h"
#include "reports/section_table.h"
#include "reports/trace_ending.h"

namespace rtrace::reports {
namespace {

// Its program and pid, as far as the trace names them (mpatrol's and StackTrack's files do not
// name the program; mpatrol's has no pid either).
std::string process_label(const ReportData& data) {
  std::string label = data.process.empty() ? "(program not recorded)" : data.process;
  if (data.pid != 0) {
    fmt::format_to(std::back_inserter(label), " (pid {})", data.pid);
  }
  return label;
}

void append_command_line(std::string& out, const ReportData& data) {
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
}

void append_memory(std::string& out, const ReportData& data) {
  if (data.attached) {
    out += "traced from: an attach to the running process (rtrace record -p)\n";
  }
  if (data.sample_bytes) {
    fmt::format_to(std::back_inserter(out), "memory figures: {}\n",
                   sampling_note(*data.sample_bytes));
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

void text(const SectionInput& input, std::string& out) {
  fmt::format_to(std::back_inserter(out), "rtrace report: {}, {} calls\n",
                 process_label(input.data), input.data.calls);
  append_command_line(out, input.data);
  append_memory(out, input.data);
  out += '\n';
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"process", json_text(input.data.process)}});
  out.push_back({{"pid", input.data.pid}});
  out.push_back(trace_ending_json(input.data));
  out.push_back({{"calls", input.data.calls}});
  if (input.data.sample_bytes) {
    out.push_back({{"sampled_every_bytes", *input.data.sample_bytes}});
  }
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  Json line = {{"process", json_text(input.data.process)}, {"pid", input.data.pid}};
  line.update(trace_ending_json(input.data));
  line["calls"] = input.data.calls;
  if (input.data.sample_bytes) {
    line["sampled_every_bytes"] = *input.data.sample_bytes;
  }
  out.members.push_back(std::move(line));
}

}  // namespace

ReportSection process_section() {
  return {.name = "process", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
