// Reading speed: a generated trace shaped like the original tracer's (an allocation with a
// 10-frame backtrace, then its free) read into a sink that does nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "binary_test_support.h"

namespace rtrace::test {
namespace {

// Counts calls and frames; every other record is ignored by the sink's defaults.
class NullSink final : public TraceSink {
 public:
  void call(const CallRecord& record) override {
    ++calls_;
    frames_ += record.frames.size();
  }
  void finish() override {}

  std::uint64_t calls_ = 0;
  std::uint64_t frames_ = 0;
};

std::string generated_trace(std::uint32_t pairs) {
  TraceBuilder t(2, 0);
  t.begin("PINF").dword(1).dword(0).dword(0).dword(10).string("./churn").end();
  t.begin("RESR").dword(1).dword(0).string("memory").string("memory allocation in bytes").end();
  for (std::uint32_t i = 0; i < pairs; ++i) {
    const std::uint64_t id = 0x10000000 + std::uint64_t{i} * 64;
    t.begin("CALL")
        .dword(1)
        .dword(0)
        .dword(i)
        .dword(2)
        .string("malloc")
        .dword(i % 512)
        .pointer(id)
        .end();
    t.begin("BTRC").dword(10);
    for (std::uint64_t f = 0; f < 10; ++f) {
      t.pointer(0x401000 + f * 0x10 + i % 7);
    }
    t.end();
    t.begin("CALL").dword(1).dword(0).dword(i).dword(1).string("free").dword(0).pointer(id).end();
    t.begin("BTRC").dword(0).end();
  }
  return t.bytes();
}

TEST(BinarySpeed, ReadsAGeneratedTraceIntoANullSink) {
  constexpr std::uint32_t kPairs = 300000;
  const std::string bytes = generated_trace(kPairs);
  NullSink sink;
  CollectingDiagnostics diagnostics;
  InputStream input(std::make_unique<MemorySource>(bytes), "generated");
  const auto start = std::chrono::steady_clock::now();
  read_sprtrace_binary(input, sink, diagnostics);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;

  EXPECT_EQ(sink.calls_, 2 * std::uint64_t{kPairs});
  EXPECT_EQ(sink.frames_, 10 * std::uint64_t{kPairs});
  EXPECT_EQ(diagnostics.text(), "");
  const double mb_per_s = static_cast<double>(bytes.size()) / 1e6 / seconds.count();
  std::printf("read %zu bytes in %.3f s: %.0f MB/s\n", bytes.size(), seconds.count(), mb_per_s);
  RecordProperty("MBps", static_cast<int>(mb_per_s));
}

}  // namespace
}  // namespace rtrace::test
