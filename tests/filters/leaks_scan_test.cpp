// The first pass of the fast leaks path (filters/leaks_scan.h) and the worker that applies its
// batches (filters/batch_worker.h), on their two threads: run by `make check-tsan` under
// ThreadSanitizer as well as in the ordinary suite. The scan's surviving calls are checked
// against the general path's leaks stage (LeaksFilter over the ordinary reader) on the fixtures
// and on generated traces of many batches.
#include "filters/leaks_scan.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "filters/batch_worker.h"
#include "filters/leaks_filter.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/packet_cursor.h"
#include "formats/sprtrace_binary/protocol.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/mapped_file.h"
#include "io/memory_source.h"
#include "io/progress.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::run_command;
using test::ScratchDir;

constexpr std::uint64_t kNoLimit = std::uint64_t{1} << 40;

// The indices of the calls that reach it, and the processes of the trace.
class CallIndices final : public TraceSink {
 public:
  void process(const ProcessInfo& info) override { pids.push_back(info.pid); }
  void call(const CallRecord& record) override { indices.push_back(record.call.index); }
  void finish() override {}

  std::vector<std::uint64_t> indices;
  std::vector<std::uint32_t> pids;
};

// The general path: the calls the leaks stage keeps (one process: PidSplit gives it one stage).
std::vector<std::uint64_t> general_survivors(const std::filesystem::path& path) {
  CallIndices survivors;
  LeaksFilter leaks(survivors);
  InputStream input(std::make_unique<MemorySource>(test::read_file(path)), path.string());
  CollectingDiagnostics diagnostics;
  read_sprtrace_binary(input, leaks, diagnostics);
  EXPECT_LE(survivors.pids.size(), 1u) << path;
  return survivors.indices;
}

// The fast path's first pass over the mapped file: the calls it keeps whole (a routing call is
// only a CALL packet).
std::optional<std::vector<std::uint64_t>> scan_survivors(const std::filesystem::path& path) {
  const std::unique_ptr<MappedFile> mapped = MappedFile::map(path.string());
  EXPECT_NE(mapped, nullptr) << path;
  if (!mapped) {
    return std::nullopt;
  }
  const std::optional<LeaksScan> scan = scan_binary_leaks(*mapped, kNoLimit);
  if (!scan) {
    return std::nullopt;
  }
  std::vector<std::uint64_t> survivors;
  for (const LeaksScanPiece& piece : scan->pieces) {
    if (piece.call_index != 0 && !piece.routing_only) {
      survivors.push_back(piece.call_index);
    }
  }
  return survivors;
}

std::filesystem::path generate(const ScratchDir& dir, const std::string& name,
                               const std::string& options) {
  const auto path = dir / name;
  const auto r = run_command((test::build_dir() / "bin" / "rtrace-gen-trace").string() + " " +
                             options + " -o '" + path.string() + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  return path;
}

TEST(LeaksScan, GeneratedTracesOfManyBatchesKeepTheGeneralPathsLeaks) {
  const ScratchDir dir;
  // 8192 events a batch: about 24 and 7 batches, with many and with few blocks alive at once.
  const std::vector<std::string> shapes = {
      "--calls 200000 --depth 2 --stacks 50 --live 30000 --seed 3",
      "--calls 60000 --depth 1 --stacks 10 --live 20 --seed 5"};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto trace = generate(dir, "g" + std::to_string(i), shapes[i]);
    const std::vector<std::uint64_t> expected = general_survivors(trace);
    EXPECT_GT(expected.size(), 10u) << shapes[i];
    EXPECT_EQ(scan_survivors(trace), expected) << shapes[i];
  }
}

// A mapped file cut short after it was mapped: the scan gives up (the general path reports the
// truncation) instead of reading what is no longer the file's.
TEST(LeaksScan, AMappedFileTruncatedMeanwhileIsLeftToTheGeneralPath) {
  const ScratchDir dir;
  const auto trace = generate(dir, "t", "--calls 50000 --depth 2 --stacks 50 --live 100 --seed 7");
  const auto size = std::filesystem::file_size(trace);
  for (const std::uintmax_t cut : {size / 2, size - 1, std::uintmax_t{3}}) {
    const auto copy = dir / ("cut" + std::to_string(cut));
    std::filesystem::copy_file(trace, copy);
    const int fd = ::open(copy.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    const std::unique_ptr<MappedFile> mapped = MappedFile::map(fd, copy.string());
    ASSERT_NE(mapped, nullptr);
    std::filesystem::resize_file(copy, cut);
    EXPECT_FALSE(scan_binary_leaks(*mapped, kNoLimit)) << cut;
    ::close(fd);
  }
}

// A packet larger than the reader accepts (64 MiB), even one the second pass would not read (the
// backtrace of a release), is the general path's to report: the scan gives up on it.
TEST(LeaksScan, APacketLargerThanTheReaderAcceptsIsLeftToTheGeneralPath) {
  const ScratchDir dir;
  const auto trace = generate(dir, "big", "--calls 2000 --depth 2 --stacks 20 --live 50 --seed 4");
  std::string bytes = test::read_file(trace);
  // A release of the trace again (its block is gone: it cannot survive), as the last call.
  std::string release;
  for (std::size_t at = 2 + static_cast<std::uint8_t>(bytes[1]); at + 8 <= bytes.size();) {
    const std::uint32_t type =
        sprtrace::load_u32(reinterpret_cast<const std::uint8_t*>(&bytes[at]), false);
    const std::uint32_t size =
        sprtrace::load_u32(reinterpret_cast<const std::uint8_t*>(&bytes[at + 4]), false);
    if (type == static_cast<std::uint32_t>(sprtrace::PacketType::FunctionCall) &&
        sprtrace::load_u32(reinterpret_cast<const std::uint8_t*>(&bytes[at + 8 + 12]), false) ==
            sprtrace::kCallFree) {
      release = bytes.substr(at, 8 + size);
    }
    at += 8 + size;
  }
  ASSERT_FALSE(release.empty());
  const std::uint32_t too_large = (std::uint32_t{64} << 20) - 8 + 1;  // with its header: 64 MiB + 1
  std::string backtrace(8 + std::size_t{too_large}, '\0');
  const std::uint32_t header[2] = {static_cast<std::uint32_t>(sprtrace::PacketType::Backtrace),
                                   too_large};
  std::memcpy(backtrace.data(), header, sizeof header);  // a count of 0 frames follows
  bytes += release + backtrace;
  const auto big = dir / "big.raw";
  test::write_file(big, bytes);
  EXPECT_EQ(scan_survivors(big), std::nullopt);
  EXPECT_TRUE(scan_survivors(trace));  // without the packet: scanned
}

// The bytes scanned go into a progress line (on a terminal, `rtrace process -l`'s), as the
// general path's reading does; here drawn into a file.
TEST(LeaksScan, CountsTheBytesScannedIntoAProgressLine) {
  const ScratchDir dir;
  const auto trace = generate(dir, "p", "--calls 20000 --depth 2 --stacks 50 --live 100 --seed 9");
  const auto size = std::filesystem::file_size(trace);
  const auto line_path = dir / "line";
  const int line = ::open(line_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(line, 0);
  const std::unique_ptr<MappedFile> mapped = MappedFile::map(trace.string());
  ASSERT_NE(mapped, nullptr);
  {
    Progress progress("reading p", size, true, line);
    std::this_thread::sleep_for(std::chrono::milliseconds(120));  // a line is due at once
    EXPECT_TRUE(scan_binary_leaks(*mapped, kNoLimit, &progress));
  }
  ::close(line);
  const std::string text = test::read_file(line_path);
  EXPECT_TRUE(std::regex_match(text, std::regex("(\r\033\\[Krtrace: reading p: [0-9.]+ (B|KiB|MiB) "
                                                "of [0-9.]+ MiB \\([0-9]+%\\), [0-9.]+ "
                                                "[KMG]?i?B/s)+\r\033\\[K")))
      << text;
}

TEST(LeaksScan, FixturesKeepTheGeneralPathsLeaks) {
  RTRACE_NEEDS_FIXTURES();
  int binary = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(test::fixture("sp-rtrace").parent_path())) {
    if (!entry.is_regular_file() || test::read_file(entry.path()).substr(0, 1) != "\xF0") {
      continue;
    }
    ++binary;
    const std::vector<std::uint64_t> expected = general_survivors(entry.path());
    EXPECT_EQ(scan_survivors(entry.path()), expected) << entry.path();
  }
  EXPECT_GE(binary, 4);  // memory, fd, shmsysv, context
}

TEST(BatchWorker, AppliesEveryBatchInOrderOnItsThread) {
  std::vector<int> applied;  // the worker's alone until finish()
  BatchWorker<std::vector<int>> worker(
      [&](std::vector<int>& batch) { applied.insert(applied.end(), batch.begin(), batch.end()); });
  std::vector<int> batch;
  for (int i = 0; i < 100000; ++i) {
    batch.push_back(i);
    if (batch.size() == 64) {
      ASSERT_TRUE(worker.hand_over(batch));
      EXPECT_TRUE(batch.empty());
    }
  }
  ASSERT_TRUE(worker.hand_over(batch));
  ASSERT_TRUE(worker.finish());
  ASSERT_EQ(applied.size(), 100000u);
  for (int i = 0; i < 100000; ++i) {
    ASSERT_EQ(applied[static_cast<std::size_t>(i)], i);
  }
}

// Whatever a batch throws is kept, not thrown at the thread's top (std::terminate), and no later
// batch is applied to the state the failed one left half updated; the caller learns it at its
// next hand-over and stops.
TEST(BatchWorker, AFailedBatchStopsTheWorkAndIsReported) {
  for (const bool standard : {true, false}) {
    int applied = 0;
    BatchWorker<std::vector<int>> worker([&](std::vector<int>& batch) {
      if (batch.front() == 3) {
        if (standard) {
          throw std::runtime_error("batch 3");
        }
        throw 3;  // not a std::exception
      }
      ++applied;
    });
    int handed = 0;
    for (int i = 0; i < 50; ++i) {
      std::vector<int> batch{i};
      if (!worker.hand_over(batch)) {
        break;
      }
      ++handed;
    }
    EXPECT_FALSE(worker.finish());
    EXPECT_EQ(applied, 3) << standard;  // batches 0, 1 and 2
    EXPECT_EQ(handed, 4) << standard;   // batch 3 is handed; the next hand-over waits for it
    ASSERT_TRUE(worker.error());
    if (standard) {
      EXPECT_THROW(std::rethrow_exception(worker.error()), std::runtime_error);
    } else {
      EXPECT_THROW(std::rethrow_exception(worker.error()), int);
    }
    EXPECT_FALSE(worker.finish());  // again, as the destructor does: no wait, no hang
  }
}

}  // namespace
}  // namespace rtrace
