// The first pass of the binary format's leaks scan (leaks_scan/leaks_scan.h) and the worker that
// applies its batches (leaks_scan/batch_worker.h), on their two threads: run by `make check-tsan`
// under ThreadSanitizer as well as in the ordinary suite. The scan's surviving calls are checked
// against the general path's leaks stage (LeaksFilter over the ordinary reader) on the fixtures
// and on generated traces of many batches.
#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "filters/leaks_filter.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/binary_test_support.h"
#include "formats/sprtrace_binary/leaks_scan/batch_worker.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/mapped_file.h"
#include "io/memory_source.h"
#include "io/progress.h"
#include "protocol/sprtrace_packet_cursor.h"
#include "protocol/sprtrace_packets.h"
#include "support/sweep.h"
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
  auto path = dir / name;
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
    // Begun a while ago: a line is due at once.
    Progress progress("reading p", size, true, line,
                      std::chrono::steady_clock::now() - std::chrono::milliseconds(120));
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

// The scan of `path` with the given split rule (LeaksScanSplit).
std::optional<LeaksScan> scan_file(const std::filesystem::path& path, const LeaksScanSplit& split,
                                   std::uint64_t max_kept = kNoLimit) {
  const std::unique_ptr<MappedFile> mapped = MappedFile::map(path.string());
  EXPECT_NE(mapped, nullptr) << path;
  if (!mapped) {
    return std::nullopt;
  }
  return scan_binary_leaks(*mapped, max_kept, nullptr, split);
}

const LeaksScanSplit kOneThread{.min_file_size = std::uint64_t{1} << 62, .search_from = {}};

// Two halves whatever the file's size, the CPUs and the load, the second from a CALL packet at or
// after `from` (the middle when not set).
LeaksScanSplit cut_from(std::optional<std::uint64_t> from) {
  return {.min_file_size = 0, .search_from = from, .min_cpus = 0, .gate_on_load = false};
}

// Whether two scans kept the same pieces (the second pass reads nothing else).
bool same_pieces(const std::optional<LeaksScan>& a, const std::optional<LeaksScan>& b) {
  if (a.has_value() != b.has_value()) {
    return false;
  }
  if (!a) {
    return true;
  }
  if (a->file_size != b->file_size || a->pieces.size() != b->pieces.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a->pieces.size(); ++i) {
    const LeaksScanPiece& x = a->pieces[i];
    const LeaksScanPiece& y = b->pieces[i];
    if (x.offset != y.offset || x.length != y.length || x.call_index != y.call_index ||
        x.routing_only != y.routing_only) {
      return false;
    }
  }
  return true;
}

// The type of each packet of a trace, by its offset.
std::vector<std::pair<std::uint64_t, std::uint32_t>> packet_types(const std::string& bytes) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> packets;
  for (std::size_t at = 2 + static_cast<std::uint8_t>(bytes[1]); at + 8 <= bytes.size();) {
    const auto* head = reinterpret_cast<const std::uint8_t*>(&bytes[at]);
    packets.emplace_back(at, sprtrace::load_u32(head, false));
    at += 8 + sprtrace::load_u32(head + 4, false);
  }
  return packets;
}

// The trace without its empty BTRC packets (the writer gives every call one; the protocol
// does not need them): calls then end with their CALL or ARGS packet.
std::string without_empty_backtraces(const std::string& bytes) {
  const std::size_t header = 2 + static_cast<std::uint8_t>(bytes[1]);
  std::string out = bytes.substr(0, header);
  const auto packets = packet_types(bytes);
  for (std::size_t i = 0; i < packets.size(); ++i) {
    const std::uint64_t end = i + 1 < packets.size() ? packets[i + 1].first : bytes.size();
    const std::string packet = bytes.substr(packets[i].first, end - packets[i].first);
    if (packets[i].second != static_cast<std::uint32_t>(sprtrace::PacketType::Backtrace) ||
        packet.size() != 12 || packet.substr(8) != std::string(4, '\0')) {
      out += packet;
    }
  }
  return out;
}

// One process (a second PINF of it, and then another process, with `more_processes`), calls of
// every kind with and without arguments and backtraces, a late map, heap information, a resource
// type registered between calls, allocations freed far later (across any cut), ids allocated
// twice without a release between, released twice, releases of ids never allocated, and a trace
// end.
std::string split_trace(bool more_processes) {
  return without_empty_backtraces(test::write_bytes([&](TraceSink& w) {
    TraceHeader header;
    header.arch = "x86_64";
    w.header(header);
    w.resource_type({.id = 1, .flags = 0, .type = "memory", .description = "bytes"});
    ProcessInfo process;
    process.pid = 100;
    process.name = "p";
    process.command_line = CommandLine{.arguments = {"p", "-x"}};
    w.process(process);
    w.mapping({.from = 0x400000, .to = 0x500000, .path = "/bin/p", .pid = 100});
    std::uint64_t index = 0;
    const Frame frames[] = {{.address = 0x401000}, {.address = 0x402000}};
    const Argument arguments[] = {{.name = "path", .value = "/tmp/x"}};
    const auto call = [&](CallKind kind, std::uint32_t type, Address id, int parts) {
      CallRecord r = test::resource_call(++index, kind, type, id);
      if ((parts & 1) != 0) {
        r.frames = frames;
      }
      if ((parts & 2) != 0) {
        r.arguments = arguments;
      }
      w.call(r);
    };
    for (Address i = 0; i < 40; ++i) {
      call(CallKind::Alloc, 1, 0x1000 + i * 16, static_cast<int>(i % 4));
      if (i % 3 == 0) {
        call(CallKind::Other, 1, 0, static_cast<int>(i % 4));
      }
      if (i >= 12 && i % 2 == 0) {
        call(CallKind::Free, 1, 0x1000 + (i - 12) * 16, static_cast<int>((i / 2) % 4));
      }
      if (i == 7 || i == 33) {
        call(CallKind::Alloc, 1, 0x7777, 1);     // twice, never released between
        call(CallKind::Free, 1, 0x9990 + i, 0);  // never allocated
      }
      if (i == 3 || i == 4) {
        call(CallKind::Alloc, 1, 0x5555 + i, 1);  // alive until i == 36
      }
      if (i == 36) {
        // Allocated again (the first block leaked), released twice; released, allocated again,
        // released twice.
        for (const CallKind kind : {CallKind::Alloc, CallKind::Free, CallKind::Free}) {
          call(kind, 1, 0x5558, 0);
        }
        for (const CallKind kind :
             {CallKind::Free, CallKind::Alloc, CallKind::Free, CallKind::Free}) {
          call(kind, 1, 0x5559, 0);
        }
      }
      if (i == 10) {
        w.mapping({.from = 0x700000, .to = 0x800000, .path = "/lib/late", .pid = 100});
      }
      if (i == 15) {
        w.heap_info(HeapInfo{.heap_bottom = 1, .heap_top = 2});
      }
      if (i == 20) {
        w.resource_type({.id = 3, .flags = 0, .type = "other", .description = "things"});
        call(CallKind::Alloc, 3, 0x1000, 1);  // the id of a memory block: another resource
      }
      if (more_processes && i == 24) {
        w.process(process);  // the same process again
      }
      if (more_processes && i == 30) {
        process.pid = 200;
        w.process(process);  // with its command line: RCMD before the next call
      }
    }
    w.trace_end({.pid = more_processes ? 200u : 100u, .reason = EndReason::Exit});
    w.finish();
  }));
}

// Wherever the second half is looked for, the pieces are the one-thread scan's; every CALL packet
// is the start of a joined second half from some search position on, whatever packet is before
// it, except where the second half would meet a PINF (then one thread goes on).
TEST(LeaksScanSplit, EveryCutGivesTheOneThreadScan) {
  const ScratchDir dir;
  std::set<std::uint32_t> before_cuts;  // the types of the packets just before a joined cut
  for (const bool more_processes : {false, true}) {
    const std::string bytes = split_trace(more_processes);
    const auto trace = dir / (more_processes ? "more.raw" : "one.raw");
    test::write_file(trace, bytes);
    const std::optional<LeaksScan> expected = scan_file(trace, kOneThread);
    ASSERT_TRUE(expected);
    EXPECT_EQ(expected->second_half, 0u);
    if (!more_processes) {
      EXPECT_EQ(scan_survivors(trace), general_survivors(trace));
    }
    const auto packets = packet_types(bytes);
    std::vector<std::size_t> starts;  // a sample still looks for the cut from every packet
    starts.reserve(packets.size());
    for (const auto& packet : packets) {
      starts.push_back(packet.first);
    }
    std::set<std::uint64_t> cuts;
    for (const std::uint64_t from : test::sweep(0, bytes.size() + 1, starts)) {
      const std::optional<LeaksScan> split = scan_file(trace, cut_from(from));
      ASSERT_TRUE(same_pieces(split, expected)) << more_processes << " " << from;
      if (split->second_half != 0) {
        cuts.insert(split->second_half);
      }
    }
    std::uint64_t last_process = 0;
    for (const auto& [offset, type] : packets) {
      if (type == static_cast<std::uint32_t>(sprtrace::PacketType::ProcessInfo)) {
        last_process = offset;
      }
    }
    std::set<std::uint64_t> calls;  // those after the last PINF
    for (std::size_t i = 1; i < packets.size(); ++i) {
      if (packets[i].second == static_cast<std::uint32_t>(sprtrace::PacketType::FunctionCall) &&
          packets[i].first > last_process) {
        calls.insert(packets[i].first);
        if (cuts.count(packets[i].first) != 0) {
          before_cuts.insert(packets[i - 1].second);
        }
      }
    }
    EXPECT_EQ(cuts, calls) << more_processes;
  }
  using sprtrace::PacketType;
  for (const PacketType type :
       {PacketType::FunctionCall, PacketType::Backtrace, PacketType::FunctionArgs,
        PacketType::MemoryMap, PacketType::HeapInfo, PacketType::ResourceRegistry,
        PacketType::CommandLine}) {  // PINF: OneCallFilesGiveTheOneThreadScan
    EXPECT_EQ(before_cuts.count(static_cast<std::uint32_t>(type)), 1u)
        << static_cast<std::uint32_t>(type);
  }
}

// A file of one call (with and without its process, a PINF, just before it): the second half is
// the call, from wherever it is looked for up to it.
TEST(LeaksScanSplit, OneCallFilesGiveTheOneThreadScan) {
  const ScratchDir dir;
  for (const bool with_process : {false, true}) {
    const std::string bytes = without_empty_backtraces(test::write_bytes([&](TraceSink& w) {
      TraceHeader header;
      header.arch = "x86_64";
      w.header(header);
      if (with_process) {
        ProcessInfo process;
        process.pid = 7;
        w.process(process);
      }
      CallRecord r;
      r.call.index = 1;
      r.call.kind = CallKind::Alloc;
      r.call.resource_id = 0x10;
      r.function = "malloc";
      w.call(r);
      w.finish();
    }));
    const auto trace = dir / "one";
    test::write_file(trace, bytes);
    const std::optional<LeaksScan> expected = scan_file(trace, kOneThread);
    ASSERT_TRUE(expected);
    const auto packets = packet_types(bytes);
    ASSERT_EQ(packets.back().second,
              static_cast<std::uint32_t>(sprtrace::PacketType::FunctionCall));
    const std::uint64_t call = packets.back().first;
    for (const std::uint64_t from : test::sweep(0, bytes.size() + 1, {call})) {
      const std::optional<LeaksScan> split = scan_file(trace, cut_from(from));
      ASSERT_TRUE(same_pieces(split, expected)) << from;
      EXPECT_EQ(split->second_half, from <= call ? call : 0) << from;
    }
  }
}

// Generated traces of many batches cut at several places: the pieces of the one-thread scan, and
// the general path's leaks. Every block alive at the cut and released after it, or allocated
// before it and never released, crosses the cut.
TEST(LeaksScanSplit, GeneratedTracesCutAnywhereKeepTheGeneralPathsLeaks) {
  const ScratchDir dir;
  const auto trace =
      generate(dir, "g", "--calls 200000 --depth 2 --stacks 50 --live 30000 --seed 3");
  const std::uint64_t size = std::filesystem::file_size(trace);
  const std::optional<LeaksScan> expected = scan_file(trace, kOneThread);
  ASSERT_TRUE(expected);
  EXPECT_EQ(scan_survivors(trace), general_survivors(trace));
  for (const std::uint64_t from : {size / 7, size / 2, size - size / 5, size - 100}) {
    const std::optional<LeaksScan> split = scan_file(trace, cut_from(from));
    EXPECT_TRUE(same_pieces(split, expected)) << from;
    EXPECT_GE(split->second_half, from);
  }
  // The default: a little past the middle.
  const std::optional<LeaksScan> middle = scan_file(trace, cut_from(std::nullopt));
  EXPECT_TRUE(same_pieces(middle, expected));
  EXPECT_GE(middle->second_half, size / 2 + size / 30);
  EXPECT_LT(middle->second_half, size / 2 + size / 30 + 4096);
  // More to keep than allowed: given up with or without a cut (the limit counts both halves).
  std::uint64_t kept = 0;
  for (const LeaksScanPiece& piece : expected->pieces) {
    kept += piece.length;
  }
  EXPECT_FALSE(scan_file(trace, kOneThread, kept - 1));
  EXPECT_FALSE(scan_file(trace, cut_from(std::nullopt), kept - 1));
  EXPECT_TRUE(same_pieces(scan_file(trace, cut_from(std::nullopt), kept), expected));
}

// Damage in either half (an impossible packet size, a second handshake, a cut end) makes the scan
// give up as the one-thread scan does: the general path then reports it at its offset.
TEST(LeaksScanSplit, DamageInEitherHalfIsLeftToTheGeneralPath) {
  const ScratchDir dir;
  const auto trace = generate(dir, "g", "--calls 30000 --depth 3 --stacks 50 --live 500 --seed 5");
  const std::string bytes = test::read_file(trace);
  const auto packets = packet_types(bytes);
  const LeaksScanSplit middle = cut_from(std::nullopt);
  ASSERT_GT(scan_file(trace, middle)->second_half, 0u);
  const auto damaged = dir / "damaged";
  for (const std::size_t packet : {packets.size() / 5, packets.size() * 4 / 5}) {
    const std::size_t at = packets[packet].first;
    for (const std::string& damage : {std::string("\xFF\xFF\xFF\x7F", 4), std::string("\xF0")}) {
      std::string corrupt = bytes;
      corrupt.replace(damage.size() == 1 ? at : at + 4, damage.size(), damage);
      test::write_file(damaged, corrupt);
      EXPECT_FALSE(scan_file(damaged, kOneThread)) << at;
      EXPECT_FALSE(scan_file(damaged, middle)) << at;
    }
    test::write_file(damaged, bytes.substr(0, at + 5));
    EXPECT_FALSE(scan_file(damaged, kOneThread)) << at;
    EXPECT_FALSE(scan_file(damaged, middle)) << at;
  }
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
