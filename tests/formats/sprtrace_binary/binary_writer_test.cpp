// Writing the sp-rtrace binary protocol: what the original tracer wrote comes back byte for byte,
// and traces in the other byte order or pointer size read back to the same records.
#include <gtest/gtest.h>

#include <string>

#include "binary_test_support.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// Reads `bytes` into `sink`; the records must be complete and undamaged.
void read_into(const std::string& bytes, TraceSink& sink) {
  InputStream input(std::make_unique<MemorySource>(bytes), "trace");
  CollectingDiagnostics diagnostics;
  read_sprtrace_binary(input, sink, diagnostics);
  EXPECT_EQ(diagnostics.text(), "");
}

// Rewrites the handshake on the way through, to change the byte order and pointer size.
class LayoutChanger final : public ForwardingSink {
 public:
  LayoutChanger(TraceSink& next, std::string_view order, std::string_view pointer_size)
      : ForwardingSink(next), order_(order), pointer_size_(pointer_size) {}
  void header(const TraceHeader& h) override {
    TraceHeader changed = h;
    changed.metadata.set("sprtrace.byte_order", order_);
    changed.metadata.set("sprtrace.pointer_size", pointer_size_);
    ForwardingSink::header(changed);
  }

 private:
  std::string_view order_;
  std::string_view pointer_size_;
};

class RoundTripTest : public testing::TestWithParam<const char*> {};

TEST_P(RoundTripTest, BinaryModelBinaryIsByteIdentical) {
  RTRACE_NEEDS_FIXTURES();
  const std::string original = read_fixture(GetParam());
  const std::string written =
      write_bytes([&](BinaryWriter& writer) { read_into(original, writer); });
  ASSERT_EQ(written.size(), original.size());
  EXPECT_TRUE(written == original)
      << "first difference at byte "
      << std::mismatch(written.begin(), written.end(), original.begin()).first - written.begin();
}

// Big-endian: the records read back equal the original's. (4-byte pointers cannot hold the
// fixtures' 64-bit addresses; FourBytePointersInBothByteOrders covers them.)
TEST_P(RoundTripTest, OtherByteOrderReadsBackTheSameRecords) {
  RTRACE_NEEDS_FIXTURES();
  const std::string original = read_fixture(GetParam());
  RecordingSink expected;
  read_into(original, expected);

  const std::string big = write_bytes([&](BinaryWriter& writer) {
    LayoutChanger changer(writer, "big", "8");
    read_into(original, changer);
  });
  EXPECT_NE(big, original);
  EXPECT_EQ(big[11], 1);  // the handshake says big-endian
  RecordingSink actual;
  read_into(big, actual);
  ASSERT_GT(actual.lines().size(), 1U);
  EXPECT_EQ(actual.lines()[0], "handshake 2.0 arch=x86_64 BE ptr=8 origin= filters=");
  EXPECT_EQ(std::vector(actual.lines().begin() + 1, actual.lines().end()),
            std::vector(expected.lines().begin() + 1, expected.lines().end()));
}

INSTANTIATE_TEST_SUITE_P(SpRtrace, RoundTripTest,
                         testing::Values("memory/memory.raw", "fd/fd.raw", "shmsysv/shmsysv.raw",
                                         "context/context.raw"));

// A hand-made record set with 32-bit values, written with 4-byte pointers in both byte orders.
TEST(BinaryWriter, FourBytePointersInBothByteOrders) {
  for (const bool big : {false, true}) {
    const Argument arguments[] = {{"path", "/tmp/x"}, {"flags", "0x241"}};
    const Frame frames[] = {{.address = 0x8048123}, {.address = 0x8049456}};
    const std::string bytes = write_bytes([&](BinaryWriter& w) {
      TraceHeader h;
      h.arch = "arm";
      h.metadata.set("sprtrace.byte_order", big ? "big" : "little");
      h.metadata.set("sprtrace.pointer_size", "4");
      w.header(h);
      ProcessInfo process;
      process.pid = 7;
      process.name = "./p";
      process.start = {100, 5};
      process.backtrace_depth = 3;
      w.process(process);
      w.mapping({0x8048000, 0x8050000, "/bin/p"});
      w.resource_type({.id = 1, .flags = 1, .type = "fd", .description = "file descriptor"});
      w.call({.call = {.index = 1,
                       .resource_id = 4,
                       .size = 1,
                       .timestamp_ns = 9'000'000,
                       .pid = 7,
                       .resource_type = 1,
                       .kind = CallKind::Alloc},
              .function = "open",
              .arguments = arguments,
              .frames = frames});
      w.heap_info({.heap_bottom = 0x100, .heap_top = 0x200, .arena = 1, .keepcost = 10});
      w.attachment({"pagemap", "p.map"});
      w.finish();
    });
    const auto result = read_bytes(bytes);
    EXPECT_EQ(result->sink.text(),
              std::string("handshake 2.0 arch=arm ") + (big ? "BE" : "LE") +
                  " ptr=4 origin= filters=\n"
                  "process pid=7 name=./p start=100.000005 text= depth=3\n"
                  "mapping 0x8048000-0x8050000 /bin/p\n"
                  "resource 1 flags=0x1 fd (file descriptor)\n"
                  "call #1 open kind=2 type=1 ctx=0x0 ts=9 size=1 id=0x4 $path=/tmp/x "
                  "$flags=0x241 bt=[0x8048123,0x8049456]\n"
                  "heap 0x100 0x200 0x0 0x0 1 0 0 0 0 0 0 0 0 10\n"
                  "attachment pagemap p.map");
    EXPECT_EQ(result->warnings, "");
  }
}

TEST(BinaryWriter, WritesADefaultHandshakeBeforeTheFirstRecord) {
  const std::string bytes = write_bytes([](BinaryWriter& w) {
    w.context({1, "alpha"});
    w.finish();
  });
  EXPECT_EQ(bytes.substr(0, 4), std::string("\xF0\x0e\x02\x00", 4));
  EXPECT_EQ(bytes.substr(16), std::string("CTXR\x0c\x00\x00\x00\x01\x00\x00\x00\x06\x00"
                                          "alpha\0",
                                          20));
}

// Symbols, groups and notes have no binary form: a group's calls go as calls, with their
// backtraces as addresses.
TEST(BinaryWriter, WritesCallGroupsAsCallsWithTheGroupBacktrace) {
  const Frame frames[] = {{.address = 0x401000, .symbol = 1}, {.address = 0x402000}};
  CallRecord calls[2];
  for (CallRecord& record : calls) {
    record.function = "malloc";
    record.call.size = 8;
    record.call.kind = CallKind::Alloc;
    record.frames = frames;
  }
  calls[0].call.index = 3;
  calls[0].call.resource_id = 0x10;
  calls[1].call.index = 9;
  calls[1].call.resource_id = 0x20;
  Symbol symbol;
  symbol.where.function = "main";
  symbol.module = "/bin/p";
  const std::string bytes = write_bytes([&](BinaryWriter& w) {
    w.symbol(1, symbol);
    w.note({"# nothing"});
    w.group({.call_count = 2, .block_count = 2, .total_size = 16});
    w.call(calls[0]);
    w.call(calls[1]);
    w.finish();
  });
  const auto result = read_bytes(bytes);
  EXPECT_EQ(result->sink.text(),
            "handshake 2.0 arch=x86_64 LE ptr=8 origin= filters=\n"
            "call #1 malloc kind=2 type=0 ctx=0x0 ts=0 size=8 id=0x10 bt=[0x401000,0x402000]\n"
            "call #2 malloc kind=2 type=0 ctx=0x0 ts=0 size=8 id=0x20 bt=[0x401000,0x402000]");
}

}  // namespace
}  // namespace rtrace::test
