// Damaged binary traces: whatever the damage, the reader never crashes or hangs, delivers only
// records that are in the intact trace, finishes the sink once, and names a position.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <string>

#include "binary_test_support.h"
#include "formats/format_registry.h"
#include "model/trace_sink.h"
#include "support/sweep.h"
#include "support/test_paths.h"

namespace rtrace::test {
namespace {

// `part` is `whole` cut short; its last record may be a call that lost what came after the cut
// (its arguments or backtrace), which shortens its description.
bool is_prefix(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  if (part.empty()) {
    return true;
  }
  if (part.size() > whole.size()) {
    return false;
  }
  const std::size_t last = part.size() - 1;
  return std::equal(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(last),
                    whole.begin()) &&
         whole[last].starts_with(part[last]);
}

// Cut memory.raw after every byte: the records are a prefix of the intact trace's, and the cut
// is reported as a warning at the offset of the packet it cut (or of the handshake).
TEST(BinaryDamage, TruncationAtEveryOffset) {
  RTRACE_NEEDS_FIXTURES();
  const std::string bytes = read_fixture("memory/memory.raw");
  const auto intact = read_bytes(bytes);
  for (const std::size_t length : sweep(0, bytes.size())) {
    const auto result = read_bytes(bytes.substr(0, length));
    ASSERT_FALSE(result->failed) << "length " << length << ": " << result->error;
    EXPECT_EQ(result->sink.finish_count(), 1);
    ASSERT_TRUE(is_prefix(result->sink.lines(), intact->sink.lines())) << "length " << length;
    // Only a cut between packets goes unnoticed.
    if (result->warnings.empty()) {
      continue;
    }
    EXPECT_TRUE(result->warnings.starts_with("trace:")) << result->warnings;
    EXPECT_NE(result->warnings.find("truncated"), std::string::npos) << result->warnings;
  }
}

// Cuts the file at `path` to `size` bytes, through a descriptor of its own, when the call with
// index `at` arrives: the trace is truncated while the reader is in the middle of it.
class TruncateAtCall final : public ForwardingSink {
 public:
  TruncateAtCall(TraceSink& next, std::filesystem::path path, std::uint64_t at, off_t size)
      : ForwardingSink(next), path_(std::move(path)), at_(at), size_(size) {}
  void call(const CallRecord& record) override {
    if (record.call.index == at_) {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(::ftruncate(fd, size_), 0);
      ::close(fd);
    }
    ForwardingSink::call(record);
  }

 private:
  std::filesystem::path path_;
  std::uint64_t at_;
  off_t size_;
};

// A file (read through a mapping) truncated while it is read: no crash, the records before the
// cut as in the intact trace, and an error naming the file and the offset it now ends at.
TEST(BinaryDamage, FileTruncatedWhileReadIsAnErrorAtTheCut) {
  RTRACE_NEEDS_FIXTURES();
  const std::string one = read_fixture("memory/memory.raw");
  const auto intact = read_bytes(one);
  const ScratchDir dir;
  const auto path = dir / "memory.raw";
  // Copies after the first (read past as a second trace) make pages beyond the cut, whose
  // reading faults once the file is cut.
  std::string copies;
  for (int i = 0; i < 64; ++i) {
    copies += one;
  }
  test::write_file(path, copies);
  // The cut: the start of the fourth call, after the third is delivered (at the fourth's CALL).
  std::size_t cut = 0;
  for (int i = 0; i < 4; ++i) {
    cut = one.find("CALL", cut + 1);
  }
  ASSERT_NE(cut, std::string::npos);
  RecordingSink records;
  TruncateAtCall truncating(records, path, 2, static_cast<off_t>(cut));
  const std::unique_ptr<InputStream> input = open_input(path.string());
  CollectingDiagnostics diagnostics;
  try {
    read_trace(*input, truncating, diagnostics);
    FAIL() << "no error; warnings: " << diagnostics.text();
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path.string());
    EXPECT_EQ(error.position(), cut);
    EXPECT_NE(std::string(error.what())
                  .find("file truncated while being read (it had " + std::to_string(copies.size()) +
                        " bytes)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(records.finish_count(), 1);
  ASSERT_GE(records.call_count(), 3U);
  // The bytes after the cut read as zeros until the truncation is found: no record comes of
  // them (at most a warning of packets of type 0).
  const std::vector<std::string>& lines = records.lines();
  ASSERT_LE(lines.size(), intact->sink.lines().size());
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i], intact->sink.lines()[i]);
  }
}

// A cut inside a call's BTRC still delivers the call (without the cut backtrace).
TEST(BinaryDamage, TruncationInsideABacktraceKeepsTheCall) {
  RTRACE_NEEDS_FIXTURES();
  const std::string bytes = read_fixture("memory/memory.raw");
  const std::size_t first_btrc = bytes.find("BTRC");
  const auto result = read_bytes(bytes.substr(0, first_btrc + 20));
  EXPECT_EQ(result->sink.lines().back(),
            "call #1 malloc kind=2 type=1 ctx=0x0 ts=438233 size=16 id=0x15dcf2a0");
  EXPECT_EQ(result->warnings, "trace:" + std::to_string(first_btrc) +
                                  ": warning: truncated packet (20 of 76 bytes); ignored\n");
}

// Random byte changes, with a fixed seed: no crash, no hang, a finished sink, and either clean
// records or a warning or an error with a position inside the input.
TEST(BinaryDamage, RandomMutationsNeverCrash) {
  RTRACE_NEEDS_FIXTURES();
  const std::string originals[] = {read_fixture("memory/memory.raw"), read_fixture("fd/fd.raw"),
                                   read_fixture("context/context.raw")};
  std::mt19937 random(20261121);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes = originals[round % 3];
    const int changes = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < changes; ++i) {
      const std::size_t at = random() % bytes.size();
      // Mostly small values and 0xFF, which make sizes and counts interesting.
      const std::uint32_t pick = random() % 4;
      bytes[at] = static_cast<char>(pick == 0 ? 0xFF : pick == 1 ? 0 : random() % 256);
    }
    const auto result = read_bytes(bytes, round % 2 == 0 ? 1 << 20 : 13);
    EXPECT_EQ(result->sink.finish_count(), 1) << "round " << round;
    if (result->failed) {
      EXPECT_LT(result->error_position, bytes.size()) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace rtrace::test
