// The decoder on files the tests write: both byte orders, several processes and threads, INFO
// series interleaved with other entries, next_cycle, names that need escaping; the context it
// keeps per process; and the fixture's bytes, which pin the encoder to the document's sample.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "stacktrack_test_support.h"

namespace rtrace::stacktrack::test {
namespace {

constexpr std::uint64_t kA = 0x0a01;
constexpr std::uint64_t kB = 0x0b02;

// Two processes (B without a PROLOGUE of its own), three threads; the INFO series of A's FLOC is
// split by B's FLOC and its series, and A's SLOC of sequence 2 waits for its text while the
// checkpoint of sequence 3 is posted, named and hit.
std::string two_processes(Order order) {
  RawEncoder e(default_layout(), order);
  e.process_start(kA, 1000000, 5000000);
  e.process_start(kB, 1000, 0, /*prologue=*/false);
  e.entry("FLOC", kA, 1, {{"filenum", 1}, {"properties", 1}}, true);
  e.info_part(kA, 1, "src/module/a_fil", false);
  e.entry("FLOC", kB, 1, {{"filenum", 1}}, true);
  e.info(kB, 1, "b.cpp");
  e.info_part(kA, 1, "e.cpp", true);
  e.entry("FPROPERTY", kA, 1, {{"filenum", 1}, {"propertynum", 0}}, true);
  e.info(kA, 1, "lang=c++");
  e.entry("SLOC", kA, 2, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 10}, {"filenum", 1}}, true);
  e.entry("SLOC", kA, 3, {{"scopeIndex", 2}, {"style", 3}, {"linenum", 20}, {"filenum", 1}}, true);
  e.info(kA, 3, "worker");
  e.entry("HIT", kA, 3, {{"when", 5000250}, {"scopeIndex", 2}, {"tid", 2}});
  e.info(kA, 2, "main");
  e.entry("HIT", kA, 2, {{"when", 5000100}, {"scopeIndex", 1}, {"tid", 1}});
  e.entry("SLOC", kB, 2, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 5}, {"filenum", 1}}, true);
  e.info(kB, 2, "server");
  e.entry("HIT", kB, 2, {{"when", 1500}, {"scopeIndex", 1}, {"tid", 3}});
  e.entry("HIT", kA, 4, {{"when", 6000000}, {"scopeIndex", 1}, {"tid", 2}});
  return e.bytes();
}

const char* const kTwoProcessesExpanded =
    R"(<PROLOGUE flags="0x4000" pid="0x0a01" seq="0" _12345678="305419896" version="256" info_len="16" entry_size="24" payload_offset="8"/>
<PROCINFO flags="0x5000" pid="0x0a01" seq="0" pid="0x0a01" writeCount="1"/>
<TIMETYPE flags="0x7000" pid="0x0a01" seq="0" tdiv="1.000000" timetype="0x0020"/>
<TIMEINFO flags="0x6000" pid="0x0a01" seq="0" start_hires="0.000000" start="1111756865"/>
<PROCINFO flags="0x5000" pid="0x0b02" seq="0" pid="0x0b02" writeCount="1"/>
<TIMETYPE flags="0x7000" pid="0x0b02" seq="0" tdiv="1.000000" timetype="0x0020"/>
<TIMEINFO flags="0x6000" pid="0x0b02" seq="0" start_hires="0.000000" start="1111756865"/>
<FLOC flags="0x1010" pid="0x0a01" seq="1" filenum="1" writeCount="0" properties="1"/>
<INFO flags="0x00ff" pid="0x0a01" seq="1" text="src/module/a_fil"/>
<FLOC flags="0x1010" pid="0x0b02" seq="1" filenum="1" writeCount="0" properties="0"/>
<INFO flags="0x02ff" pid="0x0b02" seq="1" text="b.cpp"/>
<INFO flags="0x02ff" pid="0x0a01" seq="1" text="e.cpp"/>
<FPROPERTY flags="0x1020" pid="0x0a01" seq="1" filenum="1" writeCount="0" propertynum="0"/>
<INFO flags="0x02ff" pid="0x0a01" seq="1" text="lang=c++"/>
<SLOC flags="0x1030" pid="0x0a01" seq="2" scopeIndex="1" style="3" linenum="10" writeCount="0" filenum="1"/>
<SLOC flags="0x1030" pid="0x0a01" seq="3" scopeIndex="2" style="3" linenum="20" writeCount="0" filenum="1"/>
<INFO flags="0x02ff" pid="0x0a01" seq="3" text="worker"/>
<HIT flags="0x0000" pid="0x0a01" seq="3" when="0.000250" scopeIndex="2" tid="0x0002"/>
<INFO flags="0x02ff" pid="0x0a01" seq="2" text="main"/>
<HIT flags="0x0000" pid="0x0a01" seq="2" when="0.000100" scopeIndex="1" tid="0x0001"/>
<SLOC flags="0x1030" pid="0x0b02" seq="2" scopeIndex="1" style="3" linenum="5" writeCount="0" filenum="1"/>
<INFO flags="0x02ff" pid="0x0b02" seq="2" text="server"/>
<HIT flags="0x0000" pid="0x0b02" seq="2" when="1.500000" scopeIndex="1" tid="0x0003"/>
<HIT flags="0x0000" pid="0x0a01" seq="4" when="1.000000" scopeIndex="1" tid="0x0002"/>
)";

// Every entry decoded, with the series each INFO_END completed: "OWNER:text".
struct Decoded {
  std::vector<std::string> series;
  std::vector<std::string> hits;  // "pid/tid scope-name file:line"
  std::string warnings;
};

Decoded decode_all(std::string bytes, const RawLayout& layout = default_layout()) {
  Decoded d;
  InputStream input(std::make_unique<MemorySource>(std::move(bytes)), "trace");
  CollectingDiagnostics diagnostics;
  const EntrySchema schema(layout);
  EventDecoder decoder(input, schema, diagnostics);
  while (const Entry* e = decoder.next()) {
    if (e->completed != nullptr) {
      d.series.push_back(std::string(e->completed->owner->layout->uname) + ":" +
                         e->completed->text);
    }
    if (e->kind == EntryKind::Hit) {
      const Scope* scope = e->process->scope(e->get_signed(Field::ScopeIndex));
      const SourceFile* file = scope == nullptr ? nullptr : e->process->file(scope->file);
      d.hits.push_back(fmt::format(
          "{:x}/{:x} {} {}:{}", e->pid, e->get(Field::Tid), scope == nullptr ? "?" : scope->name,
          file == nullptr ? "?" : file->name, scope == nullptr ? 0 : scope->line));
    }
  }
  d.warnings = diagnostics.text();
  return d;
}

TEST(StackTrackDecoder, SeveralProcessesThreadsAndInterleavedInfo) {
  const Expanded r = expand_bytes(two_processes(Order::Little));
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.text, kTwoProcessesExpanded);
  EXPECT_EQ(r.warnings, "");
}

TEST(StackTrackDecoder, BothByteOrdersReadTheSame) {
  const std::string big = two_processes(Order::Big);
  EXPECT_NE(big, two_processes(Order::Little));
  const Expanded r = expand_bytes(big);
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.text, kTwoProcessesExpanded);

  InputStream input(std::make_unique<MemorySource>(big), "trace");
  CollectingDiagnostics diagnostics;
  const EntrySchema schema(default_layout());
  const EventDecoder decoder(input, schema, diagnostics);
  EXPECT_EQ(decoder.byte_order(), ByteOrder::Big);
}

TEST(StackTrackDecoder, KeepsFilesScopesAndTimeBasePerProcess) {
  const Decoded d = decode_all(two_processes(Order::Big));
  EXPECT_EQ(d.series, (std::vector<std::string>{"FLOC:b.cpp", "FLOC:src/module/a_file.cpp",
                                                "FPROPERTY:lang=c++", "SLOC:worker", "SLOC:main",
                                                "SLOC:server"}));
  // The last hit of A names scope 1 from context posted two sequences before.
  EXPECT_EQ(d.hits,
            (std::vector<std::string>{"a01/2 worker src/module/a_file.cpp:20",
                                      "a01/1 main src/module/a_file.cpp:10", "b02/3 server b.cpp:5",
                                      "a01/2 main src/module/a_file.cpp:10"}));

  InputStream input(std::make_unique<MemorySource>(two_processes(Order::Little)), "trace");
  CollectingDiagnostics diagnostics;
  const EntrySchema schema(default_layout());
  EventDecoder decoder(input, schema, diagnostics);
  while (decoder.next() != nullptr) {
  }
  ASSERT_EQ(decoder.process_count(), 2U);
  const ProcessContext& a = *decoder.process(kA);
  EXPECT_EQ(a.ticks_per_second(), 1000000U);
  EXPECT_EQ(a.start_ticks(), 5000000U);
  EXPECT_DOUBLE_EQ(a.seconds_since_start(5500000), 0.5);
  EXPECT_EQ(a.file(1)->properties.at(0), "lang=c++");
  EXPECT_EQ(a.file(1)->property_count, 1);
  EXPECT_EQ(a.scope_count(), 2U);
  const ProcessContext& b = *decoder.process(kB);
  EXPECT_EQ(b.ticks_per_second(), 1000U);
  EXPECT_EQ(b.file(1)->name, "b.cpp");
  EXPECT_EQ(b.scope(1)->name, "server");
  EXPECT_EQ(b.scope(2), nullptr);
}

// A checkpoint posted again without INFO keeps its name; after next_cycle (a new write count) it
// posts its text again, which replaces the kept one.
TEST(StackTrackDecoder, NextCycleRepostsContext) {
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(kA, 1000, 0, true, 1);
  e.entry("FLOC", kA, 1, {{"filenum", 4}, {"writeCount", 1}}, true).info(kA, 1, "old.cpp");
  e.entry("SLOC", kA, 1, {{"scopeIndex", 9}, {"linenum", 10}, {"writeCount", 1}, {"filenum", 4}},
          true);
  e.info(kA, 1, "first");
  e.entry("HIT", kA, 1, {{"when", 1}, {"scopeIndex", 9}, {"tid", 7}});
  e.entry("SLOC", kA, 2, {{"scopeIndex", 9}, {"linenum", 10}, {"writeCount", 1}, {"filenum", 4}});
  e.entry("HIT", kA, 2, {{"when", 2}, {"scopeIndex", 9}, {"tid", 7}});
  e.entry("PROCINFO", kA, 0, {{"pid", kA}, {"writeCount", 2}});
  e.entry("FLOC", kA, 3, {{"filenum", 4}, {"writeCount", 2}}, true).info(kA, 3, "new.cpp");
  e.entry("SLOC", kA, 3, {{"scopeIndex", 9}, {"linenum", 11}, {"writeCount", 2}, {"filenum", 4}},
          true);
  e.info(kA, 3, "second");
  e.entry("HIT", kA, 3, {{"when", 3}, {"scopeIndex", 9}, {"tid", 7}});
  const Decoded d = decode_all(e.bytes());
  EXPECT_EQ(d.hits, (std::vector<std::string>{"a01/7 first old.cpp:10", "a01/7 first old.cpp:10",
                                              "a01/7 second new.cpp:11"}));
  EXPECT_EQ(d.series, (std::vector<std::string>{"FLOC:old.cpp", "SLOC:first", "FLOC:new.cpp",
                                                "SLOC:second"}));
  EXPECT_EQ(d.warnings, "");
}

TEST(StackTrackDecoder, NamesAreXmlEscaped) {
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(kA, 1000, 0);
  e.entry("SLOC", kA, 1, {{"scopeIndex", 1}}, true);
  e.info(kA, 1, "a<b>&\"c\"\x01\xe9'");
  const Expanded r = expand_bytes(e.bytes());
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_TRUE(
      r.text.ends_with("<INFO flags=\"0x02ff\" pid=\"0x0a01\" seq=\"1\" "
                       "text=\"a&lt;b&gt;&amp;&quot;c&quot;&#1;&#233;'\"/>\n"))
      << r.text;
}

// Texts of exactly the payload size have no NUL; series of several full parts.
TEST(StackTrackDecoder, FullPartsAndLongSeries) {
  const std::string name(100, 'x');
  RawEncoder e(default_layout(), Order::Big);
  e.process_start(kA, 1000, 0);
  e.entry("SLOC", kA, 1, {{"scopeIndex", 1}}, true).info(kA, 1, name);
  e.entry("HIT", kA, 1, {{"scopeIndex", 1}});
  const Decoded d = decode_all(e.bytes());
  EXPECT_EQ(d.series, std::vector<std::string>{"SLOC:" + name});
  EXPECT_EQ(d.hits, std::vector<std::string>{"a01/0 " + name + " ?:0"});
}

TEST(StackTrackDecoder, RawTimesPrintTicks) {
  const Expanded r = expand_bytes(two_processes(Order::Little), default_layout(),
                                  ExpandOptions{.raw_times = true});
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_NE(r.text.find("<TIMETYPE flags=\"0x7000\" pid=\"0x0a01\" seq=\"0\" tdiv=\"1000000\" "
                        "timetype=\"0x0020\"/>\n<TIMEINFO flags=\"0x6000\" pid=\"0x0a01\" "
                        "seq=\"0\" start_hires=\"5000000\" start=\"1111756865\"/>\n"),
            std::string::npos);
  EXPECT_TRUE(
      r.text.ends_with("<HIT flags=\"0x0000\" pid=\"0x0a01\" seq=\"4\" when=\"6000000\" "
                       "scopeIndex=\"1\" tid=\"0x0002\"/>\n"));
}

// Before a process's TIMETYPE and TIMEINFO, times print as ticks since 0.
TEST(StackTrackDecoder, HitBeforeTimeBasePrintsTicks) {
  RawEncoder e(default_layout(), Order::Little);
  e.entry("PROLOGUE", kA, 0,
          {{"_12345678", 0x12345678}, {"info_len", 16}, {"entry_size", 24}, {"payload_offset", 8}});
  e.entry("HIT", kB, 1, {{"when", 1234}, {"scopeIndex", 1}, {"tid", 1}});
  const Expanded r = expand_bytes(e.bytes());
  EXPECT_TRUE(r.text.ends_with("when=\"1234.000000\" scopeIndex=\"1\" tid=\"0x0001\"/>\n"));
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// A StackTrack file is told by its first entry, a PROLOGUE with the magic, in either byte order.
TEST(StackTrackDetection, ByContent) {
  const EntrySchema schema(default_layout());
  const std::string sample =
      rtrace::test::read_file(rtrace::test::fixture("stacktrack/sample.raw"));
  EXPECT_TRUE(looks_like_stacktrack(as_bytes(sample), schema));
  EXPECT_TRUE(looks_like_stacktrack(as_bytes(two_processes(Order::Big)), schema));
  EXPECT_FALSE(looks_like_stacktrack(as_bytes(sample.substr(0, 23)), schema));
  EXPECT_FALSE(looks_like_stacktrack(as_bytes(sample.substr(24)), schema));
  const std::string sprtrace =
      rtrace::test::read_file(rtrace::test::fixture("sp-rtrace/memory/memory.raw"));
  EXPECT_FALSE(looks_like_stacktrack(as_bytes(sprtrace), schema));
  EXPECT_FALSE(
      looks_like_stacktrack(as_bytes(std::string("version=2.0, arch=x86_64, ...")), schema));
}

// The fixture's bytes are the document's sample: the encoder, given the sample's entries,
// writes them byte for byte.
TEST(StackTrackEncoder, WritesTheFixturesBytes) {
  constexpr std::uint64_t pid = 0x060c;
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(pid, 1000000, 5000000);
  e.entry("FLOC", pid, 1, {{"filenum", 2}}, true)
      .info(pid, 1, "..\\..\\..\\libs\\stacktrack\\src\\filesink.cpp");
  e.entry("SLOC", pid, 1, {{"scopeIndex", 1}, {"style", 3}, {"linenum", 98}, {"filenum", 2}}, true);
  e.info(pid, 1, "file_sink_impl::open");
  e.entry("HIT", pid, 1, {{"when", 5000640}, {"scopeIndex", 1}, {"tid", 0x04c8}});
  e.entry("SLOC", pid, 2, {{"scopeIndex", 2}, {"style", 6}, {"linenum", 99}, {"filenum", 2}}, true);
  e.info(pid, 2, "name");
  e.entry("HIT", pid, 2, {{"when", 5000685}, {"scopeIndex", 2}, {"tid", 0x04c8}}, true);
  e.info(pid, 2, "bar");
  EXPECT_EQ(e.bytes(), rtrace::test::read_file(rtrace::test::fixture("stacktrack/sample.raw")));
}

}  // namespace
}  // namespace rtrace::stacktrack::test
