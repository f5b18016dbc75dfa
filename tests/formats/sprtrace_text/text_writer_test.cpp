// The text writer on hand-made records, and compressed output (call groups) against the original
// post-processor's -c / -lc outputs.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_text/text_test_support.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// Which calls form each group of a compressed fixture, in the fixture's order.
std::vector<std::vector<std::uint64_t>> group_layout(const std::string& text) {
  std::vector<std::vector<std::uint64_t>> groups(1);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# allocation summary:")) {
      groups.emplace_back();
    } else if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])) != 0) {
      groups.back().push_back(std::stoull(line));
    }
  }
  groups.pop_back();
  return groups;
}

// Stands in for the compress stage: keeps the calls and, at the end, hands them to the writer
// as groups laid out like the fixture.
class GroupingSink final : public ForwardingSink {
 public:
  GroupingSink(TraceSink& next, std::vector<std::vector<std::uint64_t>> layout,
               AppliedStages filters)
      : ForwardingSink(next), layout_(std::move(layout)), filters_(filters) {}

  void header(const TraceHeader& header) override {
    TraceHeader changed = header;
    changed.applied = filters_;
    next().header(changed);
  }
  void call(const CallRecord& record) override {
    Kept& kept = calls_[record.call.index];
    kept.call = record.call;
    kept.function = record.function;
    for (const Argument& a : record.arguments) {
      kept.argument_text.emplace_back(a.name, a.value);
    }
    kept.frames.assign(record.frames.begin(), record.frames.end());
  }
  void finish() override {
    for (const std::vector<std::uint64_t>& indices : layout_) {
      emit_group(indices);
    }
    next().finish();
  }

 private:
  struct Kept {
    Call call;
    std::string function;
    std::vector<std::pair<std::string, std::string>> argument_text;
    std::vector<Argument> arguments;
    std::vector<Frame> frames;
  };

  void emit_group(const std::vector<std::uint64_t>& indices) {
    CallGroup group{.call_count = indices.size()};
    for (const std::uint64_t index : indices) {
      ++group.block_count;
      group.total_size += calls_.at(index).call.size;
    }
    next().group(group);
    const std::vector<Frame>& frames = calls_.at(indices.front()).frames;
    for (const std::uint64_t index : indices) {
      Kept& kept = calls_.at(index);
      kept.arguments.clear();
      for (const auto& [name, value] : kept.argument_text) {
        kept.arguments.push_back({name, value});
      }
      next().call({kept.call, kept.function, kept.arguments, frames});
    }
  }

  std::vector<std::vector<std::uint64_t>> layout_;
  AppliedStages filters_;
  std::map<std::uint64_t, Kept> calls_;
};

std::string with_our_origin(std::string text) {
  const std::string theirs = "origin=sp-rtrace 1.8, ";
  text.replace(text.find(theirs), theirs.size(), std::string("origin=") + kTestOrigin + ", ");
  return text;
}

// Leak summaries belong to the leaks stage, not to the writer.
std::string without_leak_summary(const std::string& text) {
  const std::size_t at = text.find("# Resource - ");
  return at == std::string::npos ? text : text.substr(0, at);
}

std::string grouped(const std::string& raw, const std::string& expected_text,
                    AppliedStages filters) {
  return write_text([&](TraceSink& writer) {
    GroupingSink grouping(writer, group_layout(expected_text), filters);
    CollectingDiagnostics diagnostics;
    const std::unique_ptr<InputStream> input = open_input(fixture(raw).string());
    read_sprtrace_binary(*input, grouping, diagnostics);
  });
}

TEST(TextWriterGroups, CompressedLikeTheOriginal) {
  RTRACE_NEEDS_FIXTURES();
  const std::string expected = read_file(fixture("sp-rtrace/memory/memory.c.txt"));
  EXPECT_EQ(grouped("sp-rtrace/memory/memory.raw", expected, {.compress = true}),
            with_our_origin(expected));
}

TEST(TextWriterGroups, LeaksCompressedLikeTheOriginal) {
  RTRACE_NEEDS_FIXTURES();
  const std::string expected = read_file(fixture("sp-rtrace/memory/memory.lc.txt"));
  EXPECT_EQ(grouped("sp-rtrace/memory/memory.raw", expected, {.leaks = true, .compress = true}),
            with_our_origin(without_leak_summary(expected)));
}

TEST(TextWriterGroups, GroupsWithArgumentLines) {
  RTRACE_NEEDS_FIXTURES();
  const std::string expected = read_file(fixture("sp-rtrace/fd/fd.c.txt"));
  EXPECT_EQ(grouped("sp-rtrace/fd/fd.raw", expected, {.compress = true}),
            with_our_origin(expected));
}

// Builders, since partial designated initializers trip -Wmissing-field-initializers.
TraceHeader header_of(std::string arch, std::string origin = {}, AppliedStages filters = {},
                      const std::string& start_text = {}) {
  TraceHeader h;
  h.arch = std::move(arch);
  h.origin = std::move(origin);
  h.applied = filters;
  if (!start_text.empty()) {
    h.metadata.set("sprtrace.timestamp", start_text);
  }
  return h;
}

ProcessInfo process_of(std::uint32_t pid, std::string name, std::optional<std::uint32_t> depth) {
  ProcessInfo p;
  p.pid = pid;
  p.name = std::move(name);
  p.backtrace_depth = depth;
  return p;
}

Symbol symbol_of(std::string function, std::string parameters, std::string module) {
  Symbol s;
  s.where.function = std::move(function);
  s.where.parameters = std::move(parameters);
  s.module = std::move(module);
  return s;
}

SourcePosition source_of(std::string function, std::string parameters, std::string file,
                         std::uint32_t line) {
  return {.function = std::move(function),
          .parameters = std::move(parameters),
          .file = std::move(file),
          .line = line,
          .column = 0};
}

// A small trace built by hand that uses every kind of record.
void feed_everything(TraceSink& sink) {
  sink.header(header_of("armel"));
  ProcessInfo process = process_of(42, "./app", std::nullopt);
  process.start = {.seconds = 1'300'000'000, .microseconds = 5};
  sink.process(process);
  sink.output_settings({.path = "/tmp", .options = "-l"});
  sink.note({"## first comment"});
  sink.module({.id = 0x1a, .version_major = 1, .version_minor = 12, .name = "memory"});
  sink.mapping({.from = 0x1000, .to = 0x2000, .path = "/bin/app"});
  sink.context({.id = 0x10, .name = "painting the screen"});
  sink.resource_type({.id = 1, .flags = 0, .type = "memory", .description = "bytes"});
  sink.resource_type(
      {.id = 5, .flags = ResourceType::kRefcount, .type = "segment", .description = "shm"});
  sink.heap_info({.heap_bottom = 0x84cd000,
                  .heap_top = 0x84ee000,
                  .lowest_block = 0x84cd008,
                  .highest_block = 0x84d4610,
                  .arena = 135168,
                  .ordblks = 1,
                  .uordblks = 30216,
                  .fordblks = 104952,
                  .keepcost = 0xffffffff});
  sink.attachment({.name = "maps", .path = "/tmp/maps.txt"});
  sink.symbol(1, symbol_of("main", "()", "/bin/app"));
  sink.symbol(2, symbol_of("", "", "/bin/app"));
  Symbol inlined;
  inlined.module = "/bin/app";
  inlined.where = source_of("inner", "(int)", "a.c", 3);
  inlined.inlined_by = {source_of("outer", "()", "a.c", 10), source_of("main", "()", "main.c", 4)};
  sink.symbol(3, inlined);
  sink.symbol(4, Symbol{});
  Symbol named;  // an mpatrol or apitrace frame: a name, no address
  named.where = source_of("alloc_node", "()", "list.c", 12);
  sink.symbol(5, named);

  const Frame frames[] = {{0x1100, 1}, {0x1200, 2}, {0x1300, 3}, {0x9000, 4}, {0x1400, 0}, {0, 5}};
  const Argument arguments[] = {{"path", "/tmp/a b"}, {"flags", "0x241"}};
  sink.call({.call = {.index = 1,
                      .resource_id = 0xabc,
                      .size = 100,
                      .timestamp_ns = (86'400'000 + 3'723'004) * 1'000'000ULL + 999'999,
                      // a day and 01:02:03.004999999: cut to 01:02:03.004
                      .context = 0x10,
                      .resource_type = 1,
                      .kind = CallKind::Alloc},
             .function = "malloc",
             .arguments = arguments,
             .frames = frames});
  sink.note({"## between calls"});
  sink.mapping({.from = 0x5000, .to = 0x6000, .path = "/lib/late.so"});
  sink.call({.call = {.index = 2, .resource_id = 0, .resource_type = 5, .kind = CallKind::Free},
             .function = "shmdt",
             .arguments = {},
             .frames = {}});
  sink.call({.call = {.index = 3, .resource_id = 7, .resource_type = 9, .kind = CallKind::Other},
             .function = "weird",
             .arguments = {},
             .frames = {}});
  sink.call({.call = {.index = 4, .resource_type = 9, .kind = CallKind::Enter},
             .function = "frame",
             .arguments = {},
             .frames = {}});
  sink.call({.call = {.index = 5, .resource_type = 9, .kind = CallKind::Exit},
             .function = "frame",
             .arguments = {},
             .frames = {}});
  sink.finish();
}

TEST(TextWriter, EveryRecordKind) {
  const std::string expected =
      "version=2.0, arch=armel, timestamp=2011.3.13 07:06:40, process=./app, pid=42, "
      "origin=rtrace 0.1.0, \n"
      "## heap status information:\n"
      "##   heap bottom 0x84cd000\n"
      "##   heap top 0x84ee000\n"
      "##   lowest block 0x84cd008\n"
      "##   highest block 0x84d4610\n"
      "##   non-mapped space allocated from system 135168\n"
      "##   number of free chunks 1\n"
      "##   number of fastbin blocks 0\n"
      "##   number of mapped regions 0\n"
      "##   space in mapped regions 0\n"
      "##   maximum total allocated space 0\n"
      "##   space available in freed fastbin blocks 0\n"
      "##   total allocated space 30216\n"
      "##   total free space 104952\n"
      "##   top-most, releasable (via malloc_trim) space -1\n"
      "## tracing module: [1a] memory (1.12)\n"
      "@ 10 : painting the screen\n"
      "<1> : memory (bytes)\n"
      "<10> : segment (shm) [refcount]\n"
      ": /bin/app => 0x1000-0x2000\n"
      "& maps : /tmp/maps.txt\n"
      "## first comment\n"
      "1. @10 [01:02:03.004] malloc<memory>(100) = 0xabc\n"
      "\t$path = /tmp/a b\n"
      "\t$flags = 0x241\n"
      "\t0x1100 main() from /bin/app\n"
      "\t0x1200 from /bin/app\n"
      "\t0x1300 inner(int) at a.c:3 (inlined by outer() at a.c:10) (inlined by main() at "
      "main.c:4)\n"
      "\t0x9000 in ??\n"
      "\t0x1400\n"
      "\t0x0 alloc_node() at list.c:12\n"
      "\n"
      "## between calls\n"
      ": /lib/late.so => 0x5000-0x6000\n"
      "2. shmdt<segment>(0x0)\n"
      "\n"
      "3. weird({call} 0) = 0x7\n"
      "\n"
      "4. frame({enter})\n"
      "\n"
      "5. frame({exit})\n"
      "\n";
  const std::string output = write_text(feed_everything);
  EXPECT_EQ(output, expected);
}

TEST(TextWriter, EveryRecordKindReadsBackToItself) {
  const std::string output = write_text(feed_everything);
  // Read back from text, the heap block and module line print after the maps, where the
  // original post-processor prints its text input's `##` lines; so compare the second and third
  // generation.
  const std::string again = text_to_text(output);
  EXPECT_EQ(text_to_text(again), again);
  EXPECT_NE(again.find("\t0x1300 inner(int) at a.c:3 (inlined by outer() at a.c:10)"),
            std::string::npos);
}

// Calls that neither allocate nor release (apitrace calls, StackTrack checkpoints, scopes) have
// a form of their own and read back as what they were, not as releases.
TEST(TextWriter, CallsThatNeitherAllocateNorReleaseReadBackAsThemselves) {
  const Frame frames[] = {{0x10, 0}};
  const Argument arguments[] = {{"info", "x"}};
  const std::string output = write_text([&](TraceSink& sink) {
    sink.header(header_of("x86_64", "", {}, "2026.1.2 03:04:05"));
    sink.process(process_of(1, "p", 3));
    const auto call = [&](std::uint64_t index, CallKind kind, std::uint64_t size, Address id) {
      sink.call({.call = {.index = index, .resource_id = id, .size = size, .kind = kind},
                 .function = "scope",
                 .arguments = arguments,
                 .frames = frames});
    };
    call(1, CallKind::Enter, 0, 0);
    call(2, CallKind::Other, 0, 0);
    call(3, CallKind::Other, 12, 0);
    call(4, CallKind::Exit, 0, 0x1f);
    sink.finish();
  });
  EXPECT_EQ(output,
            "version=2.0, arch=x86_64, timestamp=2026.1.2 03:04:05, process=p, pid=1, "
            "backtrace depth=3, origin=rtrace 0.1.0, \n"
            "1. scope({enter})\n\t$info = x\n\t0x10\n\n"
            "2. scope({call})\n\t$info = x\n\t0x10\n\n"
            "3. scope({call} 12) = 0x0\n\t$info = x\n\t0x10\n\n"
            "4. scope({exit} 0) = 0x1f\n\t$info = x\n\t0x10\n\n");
  RecordingSink records;
  CollectingDiagnostics diagnostics;
  const std::unique_ptr<InputStream> input = input_from(output);
  read_sprtrace_text(*input, records, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
  std::vector<std::string> calls;
  for (const std::string& line : records.lines()) {
    if (line.starts_with("call ")) {
      calls.push_back(line);
    }
  }
  EXPECT_EQ(calls, (std::vector<std::string>{
                       "call #1 scope kind=3 type=0 ctx=0x0 ts=0 size=0 id=0x0 $info=x bt=[0x10]",
                       "call #2 scope kind=0 type=0 ctx=0x0 ts=0 size=0 id=0x0 $info=x bt=[0x10]",
                       "call #3 scope kind=0 type=0 ctx=0x0 ts=0 size=12 id=0x0 $info=x bt=[0x10]",
                       "call #4 scope kind=4 type=0 ctx=0x0 ts=0 size=0 id=0x1f $info=x bt=[0x10]",
                   }));
}

TEST(TextWriter, NoTypeTagWithASingleResourceType) {
  const std::string output = write_text([](TraceSink& sink) {
    sink.header(header_of("x86_64", "", {.leaks = true, .compress = false, .resolve = true},
                          "2026.1.2 03:04:05"));
    sink.process(process_of(1, "p", 3));
    sink.resource_type({.id = 1, .type = "fd", .description = "file descriptor"});
    sink.call(
        {.call =
             {.index = 7, .resource_id = 3, .size = 1, .resource_type = 1, .kind = CallKind::Alloc},
         .function = "open",
         .arguments = {},
         .frames = {}});
    sink.finish();
  });
  EXPECT_EQ(output,
            "version=2.0, arch=x86_64, timestamp=2026.1.2 03:04:05, process=p, pid=1, "
            "filter=leaks|resolve, backtrace depth=3, origin=rtrace 0.1.0, \n"
            "<1> : fd (file descriptor)\n"
            "7. open(1) = 0x3\n"
            "\n");
}

// The tracer sends heap information at the end, without the lowest and highest block; like the
// original post-processor, the writer fills them in from the allocations it wrote.
TEST(TextWriter, HeapInfoAfterTheCallsNamesTheLowestAndHighestBlock) {
  const std::string output = write_text([](TraceSink& sink) {
    sink.header(header_of("x86_64", "", {}, "2026.1.2 03:04:05"));
    sink.process(process_of(1, "p", 3));
    const auto call = [&](std::uint64_t index, Address id, CallKind kind) {
      sink.call({.call = {.index = index, .resource_id = id, .size = 8, .kind = kind},
                 .function = kind == CallKind::Alloc ? "malloc" : "free",
                 .arguments = {},
                 .frames = {}});
    };
    call(1, 0x5000, CallKind::Alloc);
    call(2, 0x3000, CallKind::Alloc);
    call(3, 0x1000, CallKind::Free);  // a release does not count
    call(4, 0x9000, CallKind::Alloc);
    sink.heap_info({.heap_bottom = 0x1000, .heap_top = 0x10000, .arena = 4096});
    sink.finish();
  });
  EXPECT_NE(output.find("## heap status information:\n"
                        "##   heap bottom 0x1000\n"
                        "##   heap top 0x10000\n"
                        "##   lowest block 0x3000\n"
                        "##   highest block 0x9000\n"),
            std::string::npos)
      << output;
}

TEST(TextWriter, TraceWithoutCallsStillPrintsItsPreamble) {
  const std::string output = write_text([](TraceSink& sink) {
    sink.header(header_of("x86_64", "sp-rtrace 1.6", {}, "2011.6.16 15:49:48"));
    sink.process(process_of(9, "q", std::nullopt));
    sink.note({"## only a comment"});
    sink.finish();
  });
  EXPECT_EQ(output,
            "version=2.0, arch=x86_64, timestamp=2011.6.16 15:49:48, process=q, pid=9, "
            "origin=sp-rtrace 1.6, \n"
            "## only a comment\n");
}

}  // namespace
}  // namespace rtrace::test
