// Lossless round trips: every fixture of every format goes format -> text -> binary -> text
// (and format -> compact -> text),
// and at each step the records read back must equal the records written, except exactly what
// the written format declares it cannot hold (TraceFormatInfo::losses).
//
// A new format adds itself with ONE line in kRoundTrips: its name and its fixture folder.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/format_registry.h"
#include "io/byte_source.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "io/output_stream.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

struct RoundTrip {
  std::string_view format;       // a name in the format table
  std::string_view fixture_dir;  // every file under ../shared/fixtures/<dir> in that format
  // Files of that folder damaged on purpose (the format's own tests read them): not traces to
  // round-trip.
  std::initializer_list<std::string_view> damaged = {};
};

// One line per format.
const RoundTrip kRoundTrips[] = {
    {"binary", "sp-rtrace"},
    {"text", "sp-rtrace"},
    {"mpatrol",
     "mpatrol",
     {"e01_no_end_marker.trace", "e02_truncated_mid_record.trace",
      "e08_unknown_record_byte.trace"}},

    {"stacktrack", "stacktrack"},
    {"apitrace", "apitrace"},
};

// Every record as canonical text, grouped by kind (a writer may lay the kinds out in its own
// order; within a kind the order must hold). Fields a format cannot hold are left out when
// `losses` says so; symbols print by value (ids belong to one stream).
class ContentSink final : public TraceSink {
 public:
  explicit ContentSink(std::uint32_t losses) : losses_(losses) {}

  void header(const TraceHeader& h) override {
    add("header", lost(kLosesHistory)
                      ? fmt::format("arch={}", h.arch)
                      : fmt::format("arch={} origin={} applied={}{}{}", h.arch, h.origin,
                                    h.applied.leaks ? "l" : "", h.applied.compress ? "c" : "",
                                    h.applied.resolve ? "r" : ""));
  }
  void process(const ProcessInfo& p) override {
    add("process",
        fmt::format("pid={} name={} start={} {} depth={}", p.pid, p.name, p.start.seconds,
                    lost(kLosesStartSubseconds) ? 0 : p.start.microseconds,
                    p.backtrace_depth          ? std::to_string(*p.backtrace_depth)
                    : lost(kLosesUnknownDepth) ? "0"
                                               : "-"));
    if (p.command_line) {
      add("command line", fmt::format("pid={} cut={} [{}]", p.pid, p.command_line->cut,
                                      fmt::join(p.command_line->arguments, "|")));
    }
  }
  void trace_end(const TraceEnd& e) override {
    const bool timeless = lost(kLosesEndTime);
    add("trace end",
        fmt::format("pid={} reason={} signal={} time={}.{} peak={} rss={}", timeless ? 0 : e.pid,
                    static_cast<int>(e.reason), e.signal, timeless ? 0 : e.time.seconds,
                    timeless ? 0 : e.time.microseconds, e.peak_rss_bytes, e.rss_bytes));
  }
  void output_settings(const OutputSettings& s) override {
    if (!lost(kLosesOutputSettings)) {
      add("output", s.path + " " + s.options);
    }
  }
  void module(const ModuleInfo& m) override {
    add("module", fmt::format("{} {} {}.{}", m.id, m.name, m.version_major, m.version_minor));
  }
  void mapping(const Mapping& m) override {
    add("mapping", fmt::format("{:#x}-{:#x} {} pid={}", m.from, m.to, m.path, m.pid));
  }
  void context(const ContextInfo& c) override {
    add("context", fmt::format("{} {}", c.id, c.name));
  }
  void resource_type(const ResourceType& t) override {
    add("type", fmt::format("{} {} {} ({})", t.id, t.flags, t.type, t.description));
  }
  void symbol(SymbolId id, const Symbol& s) override {
    symbols_[id] = describe_symbol(lost(kLosesPartialSymbols) ? partial(s) : s);
  }
  void call(const CallRecord& r) override {
    const Call& c = r.call;
    CallKind kind = c.kind;
    if (lost(kLosesScopes) && (kind == CallKind::Enter || kind == CallKind::Exit)) {
      kind = CallKind::Other;
    }
    std::string line = fmt::format(
        "#{} {} kind={} type={} ctx={:#x} ts={} pid={} thread={} size={} id={:#x}",
        lost(kLosesCallIndices) ? 0 : c.index, r.function, static_cast<int>(kind), c.resource_type,
        c.context,
        lost(kLosesSubmilliseconds) ? c.timestamp_ns / 1'000'000 * 1'000'000 : c.timestamp_ns,
        c.pid, lost(kLosesThreads) ? 0 : c.thread, c.size, c.resource_id);
    for (const Argument& a : r.arguments) {
      line += fmt::format(" ${}={}", a.name, a.value);
    }
    for (const Frame& f : r.frames) {
      line += fmt::format(" {:#x}", f.address);
      if (f.symbol != kNoSymbol && !lost(kLosesSymbols)) {
        line += "<" + symbols_.at(f.symbol) + ">";
      }
    }
    add("call", line);
  }
  void group(const CallGroup& g) override {
    if (!lost(kLosesGroupsAndSummaries)) {
      add("group", fmt::format("{} {} {}", g.call_count, g.block_count, g.total_size));
    }
  }
  void leak_summary(const LeakSummary& s) override {
    if (!lost(kLosesGroupsAndSummaries)) {
      add("leaks", fmt::format("{} {} ({}) {} {}", s.resource_type, s.type, s.description, s.blocks,
                               s.bytes));
    }
  }
  void heap_info(const HeapInfo& h) override {
    const bool range = !lost(kLosesHeapBlockRange);
    add("heap", fmt::format("{:#x} {:#x} {:#x} {:#x} {} {} {} {} {} {} {} {} {} {}", h.heap_bottom,
                            h.heap_top, range ? h.lowest_block : 0, range ? h.highest_block : 0,
                            h.arena, h.ordblks, h.smblks, h.hblks, h.hblkhd, h.usmblks, h.fsmblks,
                            h.uordblks, h.fordblks, h.keepcost));
  }
  void attachment(const Attachment& a) override { add("attachment", a.name + " " + a.path); }
  void note(const Note& n) override {
    if (!lost(kLosesNotes)) {
      add("note", std::string(n.text));
    }
  }
  void finish() override { ++finishes_; }

  const std::map<std::string, std::vector<std::string>>& content() const { return content_; }
  int finishes() const { return finishes_; }

 private:
  // What a format that keeps only whole frames keeps of `s`: the module when there is no source
  // file, a line only with its file.
  static Symbol partial(Symbol s) {
    if (!s.where.file.empty()) {
      s.module.clear();
    } else {
      s.where.line = 0;
    }
    return s;
  }
  static std::string describe_symbol(const Symbol& s) {
    const auto position = [](const SourcePosition& p) {
      return fmt::format("{}|{}|{}|{}|{}", p.function, p.parameters, p.file, p.line, p.column);
    };
    std::string text = s.module + "|" + position(s.where);
    for (const SourcePosition& call : s.inlined_by) {
      text += " inlined by " + position(call);
    }
    return text;
  }
  bool lost(std::uint32_t what) const { return (losses_ & what) != 0; }
  void add(const std::string& kind, std::string line) { content_[kind].push_back(std::move(line)); }

  std::uint32_t losses_;
  std::unordered_map<SymbolId, std::string> symbols_;
  std::map<std::string, std::vector<std::string>> content_;
  int finishes_ = 0;
};

const TraceFormatInfo& format_named(std::string_view name) {
  const TraceFormatInfo* format = find_format(name);
  if (format == nullptr) {
    throw std::runtime_error("no format " + std::string(name));
  }
  return *format;
}

// Reads `bytes` (any format) into `sink`; the input must be read whole without complaint.
void read_into(const std::string& bytes, TraceSink& sink) {
  InputStream input(std::make_unique<MemorySource>(bytes), "trace");
  CollectingDiagnostics diagnostics;
  read_trace(input, sink, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
}

std::map<std::string, std::vector<std::string>> content_of(const std::string& bytes,
                                                           std::uint32_t losses) {
  ContentSink sink(losses);
  read_into(bytes, sink);
  EXPECT_EQ(sink.finishes(), 1);
  return sink.content();
}

// `bytes` (any format) written in `format`. (No origin of our own: a trace that names none is
// read back naming none.)
std::string convert(const std::string& bytes, const TraceFormatInfo& format) {
  ScratchDir scratch;
  const std::filesystem::path path = scratch / "out";
  {
    OutputStream out(path.string(), {});
    const std::unique_ptr<TraceSink> writer =
        format.open_writer(out, ExportOptions{.origin = {}, .keep_input_order = false});
    read_into(bytes, *writer);
    out.commit();
  }
  return read_file(path);
}

// The files of `trip`'s folder whose content is in its format, but the damaged ones.
std::vector<std::filesystem::path> fixtures_of(const RoundTrip& trip) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(fixture(std::string(trip.fixture_dir)))) {
    if (!entry.is_regular_file() ||
        std::ranges::find(trip.damaged, entry.path().filename().string()) != trip.damaged.end()) {
      continue;
    }
    const std::string head = read_file(entry.path()).substr(0, kDetectBytes);
    const TraceFormatInfo* detected =
        detect_format({reinterpret_cast<const std::uint8_t*>(head.data()), head.size()});
    if (detected != nullptr && detected->name == trip.format) {
      files.push_back(entry.path());
    }
  }
  std::ranges::sort(files);
  return files;
}

// One step: `from` (read with nothing masked but `losses`) written in `to` and read back must
// give the same content, masked by what `to` cannot hold.
void expect_step(const std::string& label, const std::string& from, const std::string& to,
                 std::uint32_t losses) {
  const auto before = content_of(from, losses);
  const auto after = content_of(to, losses);
  EXPECT_EQ(fmt::format("{}", fmt::join(before, "\n")), fmt::format("{}", fmt::join(after, "\n")))
      << label;
}

// `original` (any format) -> text -> binary -> text.
void expect_round_trip(const std::string& original) {
  const TraceFormatInfo& text = format_named("text");
  const TraceFormatInfo& binary = format_named("binary");
  {
    const std::string as_text = convert(original, text);
    expect_step("format -> text", original, as_text, text.losses);
    const std::string as_binary = convert(as_text, binary);
    expect_step("text -> binary", as_text, as_binary, binary.losses);
    const std::string back_to_text = convert(as_binary, text);
    expect_step("binary -> text", as_binary, back_to_text, text.losses | binary.losses);
    // Nothing the two formats share is lost over the whole trip.
    expect_step("format -> text -> binary -> text", original, back_to_text,
                text.losses | binary.losses);
    // Text read back and written again is the same text (from the second generation on: like
    // the original, text input's `##` lines print after the memory maps).
    const std::string again = convert(as_text, text);
    EXPECT_EQ(convert(again, text), again);
    // The compact recording format keeps what it declares, from every format.
    const TraceFormatInfo& compact = format_named("compact");
    const std::string as_compact = convert(original, compact);
    expect_step("format -> compact", original, as_compact, compact.losses);
    expect_step("format -> compact -> text", original, convert(as_compact, text),
                compact.losses | text.losses);
  }
}

class RoundTripTest : public testing::TestWithParam<RoundTrip> {};

TEST_P(RoundTripTest, FormatToTextToBinaryToTextLosesOnlyWhatEachFormatDeclares) {
  RTRACE_NEEDS_FIXTURES();
  const RoundTrip& trip = GetParam();
  const std::vector<std::filesystem::path> files = fixtures_of(trip);
  ASSERT_FALSE(files.empty()) << "no " << trip.format << " fixtures under " << trip.fixture_dir;
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.string());
    expect_round_trip(read_file(file));
  }
}

// What only rtrace's tracer writes (RCMD, REND: docs/protocol-extensions.md), with arguments that
// need every kind of quoting in the text, and a second process whose trace ended by a signal.
TEST(RoundTrip, CommandLineAndTraceEndOfRtracesTracer) {
  ScratchDir scratch;
  const std::filesystem::path path = scratch / "tracer.rtrace";
  {
    OutputStream out(path.string(), {});
    const std::unique_ptr<TraceSink> writer = format_named("binary").open_writer(out, {});
    TraceHeader header;
    header.arch = "x86_64";
    writer->header(header);
    ProcessInfo process;
    process.pid = 41;
    process.name = "./prog";
    process.start = {.seconds = 1763919601, .microseconds = 5};
    process.backtrace_depth = 10;
    process.command_line = CommandLine{.arguments = {"./prog", "two words", "it's", "", "tab\there",
                                                     "\\x", "$HOME", "caf\xc3\xa9"}};
    writer->process(process);
    ResourceType memory;
    memory.id = 1;
    memory.type = "memory";
    memory.description = "memory allocation";
    writer->resource_type(memory);
    CallRecord call;
    call.call = {.index = 1,
                 .resource_id = 0x10,
                 .size = 5,
                 .pid = 41,
                 .resource_type = 1,
                 .kind = CallKind::Alloc};
    call.function = "malloc";
    writer->call(call);
    writer->trace_end({.pid = 41,
                       .reason = EndReason::ToggleOff,
                       .time = {1763919602, 999999},
                       .peak_rss_bytes = 8 << 20,
                       .rss_bytes = 4096});
    ProcessInfo child;
    child.pid = 42;
    child.name = "./child";
    child.backtrace_depth = 10;
    child.command_line = CommandLine{.arguments = {"./child"}, .cut = true};
    writer->process(child);
    writer->trace_end({.pid = 42, .reason = EndReason::Signal, .signal = 11});
    writer->finish();
    out.commit();
  }
  const std::string original = read_file(path);
  expect_round_trip(original);
  const auto content = content_of(original, 0);
  EXPECT_EQ(fmt::format("{}", fmt::join(content.at("command line"), "\n")),
            "pid=41 cut=false [./prog|two words|it's||tab\there|\\x|$HOME|caf\xc3\xa9]\n"
            "pid=42 cut=true [./child]");
  EXPECT_EQ(fmt::format("{}", fmt::join(content.at("trace end"), "\n")),
            "pid=41 reason=2 signal=0 time=1763919602.999999 peak=8388608 rss=4096\n"
            "pid=42 reason=4 signal=11 time=0.0 peak=0 rss=0");
  const std::string text = convert(original, format_named("text"));
  EXPECT_NE(text.find("\n## command line: ./prog 'two words' 'it'\\''s' '' $'tab\\x09here' "
                      "'\\x' '$HOME' 'caf\xc3\xa9'\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n## command line (cut): ./child\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n## trace end: pid=42, reason=signal, signal=11, time=0.000000, "
                      "peak rss=0, rss=0\n"),
            std::string::npos)
      << text;
}

// A trace end whose wall clock says 1000000 microseconds, which the compact and text readers
// refuse: the binary reader leaves that time out (a warning), so `rtrace process --to compact`
// never writes a file that rtrace then refuses to read, and the trace stays complete.
TEST(RoundTrip, WhatTheCompactConversionWritesIsReadBack) {
  ScratchDir scratch;
  const std::filesystem::path path = scratch / "end.rtrace";
  {
    OutputStream out(path.string(), {});
    const std::unique_ptr<TraceSink> writer = format_named("binary").open_writer(out, {});
    TraceHeader header;
    header.arch = "x86_64";
    writer->header(header);
    ProcessInfo process;
    process.pid = 41;
    process.name = "./prog";
    process.command_line = CommandLine{.arguments = {"./prog"}};
    writer->process(process);
    writer->trace_end({.pid = 41, .reason = EndReason::Exit, .time = {1763919602, 1000000}});
    writer->finish();
    out.commit();
  }
  const std::string rtrace = built_tool("rtrace");
  const std::filesystem::path compact = scratch / "end.compact";
  const CommandResult converted =
      run_command(rtrace + " process --to compact -o " + quoted(compact) + " " + quoted(path));
  ASSERT_EQ(converted.status, 0) << converted.err;
  EXPECT_EQ(converted.err, "rtrace: " + path.string() +
                               ":76: warning: REND packet's wall-clock microseconds 1000000 out "
                               "of range; time left out\n");
  const CommandResult read_back = run_command(rtrace + " process " + quoted(compact));
  EXPECT_EQ(read_back.status, 0) << read_back.err;
  EXPECT_EQ(read_back.err, "");
}

// A stream of several processes is written as one trace per process, one after the other; each
// format's reader goes on into the next trace, so a conversion keeps every process's calls (the
// compact and binary conversions kept the first process only, with a misleading warning), and
// the registries the traces repeat are declared once.
TEST(RoundTrip, ConversionsOfSeveralProcessesKeepEveryProcess) {
  ScratchDir scratch;
  const std::filesystem::path input = scratch / "two.txt";
  write_file(input,
             "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./a, pid=100, "
             "backtrace depth=2, origin=rtrace 0.1.0, \n"
             "<1> : memory (memory allocation in bytes)\n"
             "1. malloc(10) = 0x1000\n\t0x401000\n\n"
             "2. malloc(20) = 0x2000\n\t0x401000\n\n"
             "## process: pid=200, process=./b, timestamp=2026.11.21 11:09:10, backtrace "
             "depth=2, \n"
             "## pid=200\n"
             "3. malloc(30) = 0x3000\n\t0x402000\n\n"
             "4. free(0x3000)\n\t0x402000\n\n"
             "## pid=100\n"
             "5. free(0x1000)\n\t0x401000\n\n");
  const std::string rtrace = built_tool("rtrace");
  // The text of each process as read from the input itself, calls numbered as in the input.
  const CommandResult direct = run_command(rtrace + " process " + quoted(input));
  ASSERT_EQ(direct.status, 0) << direct.err;
  for (const std::string format : {"text", "binary", "compact"}) {
    const std::filesystem::path converted = scratch / ("two." + format);
    const CommandResult written = run_command(rtrace + " process --to " + format + " -o " +
                                              quoted(converted) + " " + quoted(input));
    ASSERT_EQ(written.status, 0) << format << written.err;
    // Call 5 is the first process's third: the formats that number calls by their place say so.
    EXPECT_EQ(written.err, format == "text"
                               ? ""
                               : "rtrace: " + input.string() + ":20: warning: the " + format +
                                     " format cannot hold what the trace has of: the calls' "
                                     "numbers (renumbered by their place); left out\n")
        << format;
    const CommandResult read_back = run_command(rtrace + " process " + quoted(converted));
    EXPECT_EQ(read_back.status, 0) << format << read_back.err;
    EXPECT_EQ(read_back.err, "") << format;
    std::string expected = direct.out;
    if (format != "text") {
      // The binary and compact formats number calls by their place in the file
      // (kLosesCallIndices) and keep each process's own start (the text header's timestamp is
      // the stream's).
      expected =
          "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, process=./a, pid=100, "
          "backtrace depth=2, origin=rtrace 0.1.0, \n"
          "<1> : memory (memory allocation in bytes)\n"
          "1. malloc(10) = 0x1000\n\t0x401000\n\n"
          "2. malloc(20) = 0x2000\n\t0x401000\n\n"
          "3. free(0x1000)\n\t0x401000\n\n"
          "version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:10, process=./b, pid=200, "
          "backtrace depth=2, origin=rtrace 0.1.0, \n"
          "<1> : memory (memory allocation in bytes)\n"
          "4. malloc(30) = 0x3000\n\t0x402000\n\n"
          "5. free(0x3000)\n\t0x402000\n\n";
    }
    EXPECT_EQ(read_back.out, expected) << format;
  }
}

// A conversion into a format that cannot hold part of what the trace has says what it left out
// (the format table's losses), at the end of the input; one that loses nothing says nothing, and
// neither does the text output, a view of the trace.
TEST(RoundTrip, AConversionSaysWhatItsFormatCannotHold) {
  RTRACE_NEEDS_FIXTURES();
  ScratchDir scratch;
  const std::string rtrace = built_tool("rtrace");
  const std::filesystem::path stacktrack = fixture("stacktrack/sample.raw");
  const CommandResult lossy = run_command(rtrace + " process --to compact -o " +
                                          quoted(scratch / "st.rtrace") + " " + quoted(stacktrack));
  EXPECT_EQ(lossy.status, 0) << lossy.err;
  EXPECT_EQ(lossy.err, "rtrace: " + stacktrack.string() +
                           ":384: warning: the compact format cannot hold what the trace has of: "
                           "the frames' function names and source lines (addresses only); the "
                           "calls' thread ids; left out\n");
  const CommandResult viewed =
      run_command(rtrace + " process --to text " + quoted(stacktrack) + " > /dev/null");
  EXPECT_EQ(viewed.err, "");
  const CommandResult lossless =
      run_command(rtrace + " process --to compact -o " + quoted(scratch / "m.rtrace") + " " +
                  quoted(fixture("sp-rtrace/memory/memory.raw")));
  EXPECT_EQ(lossless.status, 0) << lossless.err;
  EXPECT_EQ(lossless.err, "");
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, RoundTripTest, testing::ValuesIn(kRoundTrips),
                         [](const testing::TestParamInfo<RoundTrip>& info) {
                           return std::string(info.param.format);
                         });

}  // namespace
}  // namespace rtrace::test
