// The fast path of `rtrace process -l` (the binary format's leaks scan,
// formats/sprtrace_binary/leaks_scan/leaks_scan_read.h) against the general path, as real
// processes on real files: the same standard output, standard error and exit status for every
// fixture, for generated traces, for traces with late maps and several processes, for damaged and
// truncated files and for a pipe; and the general path chosen where the fast one cannot decide.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/process_command.h"
#include "formats/sprtrace_binary/binary_test_support.h"
#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"
#include "formats/sprtrace_binary/leaks_scan/leaks_scan_read.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::run_command;
using test::ScratchDir;

std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

std::string bin(const std::string& name) {
  return (test::build_dir() / "bin" / name).string();
}

// `rtrace process ARGS` by the fast path where it applies, and with it turned off: the same.
void expect_same(const std::string& args) {
  const auto fast = run_command(bin("rtrace") + " process " + args);
  const auto general = run_command("RTRACE_NO_FAST_PATH=1 " + bin("rtrace") + " process " + args);
  EXPECT_EQ(fast.status, general.status) << args;
  EXPECT_EQ(fast.err, general.err) << args;
  EXPECT_TRUE(fast.out == general.out) << args << ": outputs differ";
}

// Whether the first pass takes the file at `path`, opened as `rtrace process` opens its input.
bool takes_fast_path(const std::filesystem::path& path) {
  const std::unique_ptr<InputStream> input = open_input(path.string());
  return scan_sprtrace_binary_leaks(*input, false) != nullptr;
}

bool is_binary_trace(const std::filesystem::path& path) {
  const std::string bytes = test::read_file(path);
  return !bytes.empty() && bytes[0] == '\xF0';
}

std::filesystem::path generate(const ScratchDir& dir, const std::string& name,
                               const std::string& options) {
  const auto path = dir / name;
  const auto r = run_command(bin("rtrace-gen-trace") + " " + options + " -o " + quote(path));
  EXPECT_EQ(r.status, 0) << r.err;
  return path;
}

const std::vector<std::string> kLeakOptions = {
    "-l", "-lc", "-lc -s size", "-lc -s count-asc", "-l -b 2 -a", "-l --to binary", "-lq --strict"};

TEST(FastLeaks, OptionsThatDropCallsBeforeTheLeaksStageTakeTheGeneralPath) {
  cli::ProcessOptions o;
  EXPECT_FALSE(cli::leaks_scan_applies(o));
  o.leaks = true;
  o.compress = true;
  o.backtrace_depth = 3;
  EXPECT_TRUE(cli::leaks_scan_applies(o));
  for (int drop = 0; drop < 5; ++drop) {
    cli::ProcessOptions d = o;
    (drop == 0   ? d.context_mask
     : drop == 1 ? d.resource_mask
     : drop == 2 ? d.include_file
     : drop == 3 ? d.exclude_file
                 : d.call_address) = "1";
    EXPECT_FALSE(cli::leaks_scan_applies(d)) << drop;
  }
  ::setenv("RTRACE_NO_FAST_PATH", "1", 1);
  EXPECT_FALSE(cli::leaks_scan_applies(o));
  ::unsetenv("RTRACE_NO_FAST_PATH");
}

TEST(FastLeaks, OnlyUndamagedBinaryFilesTakeTheFastPath) {
  RTRACE_NEEDS_FIXTURES();
  const ScratchDir dir;
  const auto raw = test::fixture("sp-rtrace/memory/memory.raw");
  EXPECT_TRUE(takes_fast_path(raw));
  // Not a mapped file (as standard input or a pipe): the same bytes are read the general way.
  InputStream unmapped(std::make_unique<MemorySource>(test::read_file(raw)), "t");
  EXPECT_FALSE(scan_sprtrace_binary_leaks(unmapped, false));
  EXPECT_FALSE(takes_fast_path(test::fixture("sp-rtrace/memory/memory.txt")));
  ASSERT_EQ(run_command("gzip -c " + quote(raw) + " > " + quote(dir / "gz")).status, 0);
  EXPECT_FALSE(takes_fast_path(dir / "gz"));
  const std::string bytes = test::read_file(raw);
  test::write_file(dir / "cut", bytes.substr(0, bytes.size() - 3));
  EXPECT_FALSE(takes_fast_path(dir / "cut"));
  std::string corrupt = bytes;
  corrupt[corrupt.size() / 2] = '\xFF';  // somewhere in the calls
  corrupt[corrupt.size() / 2 + 1] = '\xFF';
  corrupt[corrupt.size() / 2 + 2] = '\xFF';
  corrupt[corrupt.size() / 2 + 3] = '\xFF';
  test::write_file(dir / "corrupt", corrupt);
  EXPECT_FALSE(takes_fast_path(dir / "corrupt"));
}

TEST(FastLeaks, EveryFixtureGivesTheGeneralPathsOutput) {
  RTRACE_NEEDS_FIXTURES();
  int binary = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(test::fixture("sp-rtrace").parent_path())) {
    if (!entry.is_regular_file()) {
      continue;
    }
    const std::string input = "-i " + quote(entry.path());
    if (!is_binary_trace(entry.path())) {
      expect_same("-l " + input);
      continue;
    }
    ++binary;
    EXPECT_TRUE(takes_fast_path(entry.path())) << entry.path();
    for (const std::string& options : kLeakOptions) {
      expect_same(options + " " + input);
    }
  }
  EXPECT_GE(binary, 4);  // memory, fd, shmsysv, context
}

TEST(FastLeaks, GeneratedTracesGiveTheGeneralPathsOutput) {
  const ScratchDir dir;
  const std::vector<std::string> shapes = {
      "--calls 20000 --depth 10 --stacks 300", "--calls 20000 --depth 3 --stacks 50 --live 10",
      "--calls 50000 --depth 20 --stacks 2000 --live 100000 --seed 7", "--calls 1 --depth 1"};
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto trace = generate(dir, "g" + std::to_string(i), shapes[i]);
    for (const std::string& options : kLeakOptions) {
      expect_same(options + " -i " + quote(trace));
    }
  }
}

// Late maps, a refcounted resource type, arguments, command lines, heap information and a trace
// end between the calls of two processes, and calls before any process: what the routing calls keep
// in order.
std::string mixed_trace() {
  return test::write_bytes([](TraceSink& w) {
    TraceHeader header;
    header.arch = "x86_64";
    w.header(header);
    w.resource_type({.id = 1, .flags = 0, .type = "memory", .description = "bytes"});
    w.resource_type(
        {.id = 2, .flags = ResourceType::kRefcount, .type = "fd", .description = "fds"});
    std::uint64_t index = 0;
    const Frame frames[] = {{.address = 0x401000}, {.address = 0x402000}};
    const Argument arguments[] = {{.name = "path", .value = "/tmp/x"}};
    const auto call = [&](CallKind kind, std::uint32_t type, Address id, bool with_args) {
      CallRecord r = test::resource_call(++index, kind, type, id);
      r.frames = frames;
      if (with_args) {
        r.arguments = arguments;
      }
      w.call(r);
    };
    call(CallKind::Alloc, 1, 0x10, false);  // before any process
    call(CallKind::Free, 1, 0x10, false);
    for (std::uint32_t round = 0; round < 3; ++round) {
      for (const std::uint32_t pid : {100u, 200u}) {
        ProcessInfo process;
        process.pid = pid;
        process.name = "p" + std::to_string(pid);
        if (round == 0) {
          // Both with a command line; only 200 ends its trace: 100 is incomplete (a warning at
          // the end of the file).
          process.command_line = CommandLine{.arguments = {process.name, "-x"}};
        }
        w.process(process);
        if (round == 0) {
          w.mapping({.from = 0x400000 + pid, .to = 0x500000, .path = "/bin/p", .pid = pid});
        }
        for (Address id = 1; id < 40; ++id) {
          call(CallKind::Alloc, 1, id * 16 + round, id % 5 == 0);
          call(CallKind::Alloc, 2, id % 4, true);  // refcounted: repeats add references
          call(CallKind::Other, 1, 0, false);
          if (id % 3 != 0) {
            call(CallKind::Free, 1, id * 16 + round, false);
          }
          if (id % 2 == 0) {
            call(CallKind::Free, 2, id % 4, false);
          }
          if (id == 20) {
            w.mapping({.from = 0x700000 + round, .to = 0x800000, .path = "/lib/late", .pid = pid});
          }
        }
        w.heap_info(HeapInfo{.heap_bottom = 1, .heap_top = 2});
        if (round == 1 && pid == 100) {
          w.trace_end({.pid = 200, .reason = EndReason::Exit});
        }
      }
    }
    w.finish();
  });
}

TEST(FastLeaks, LateMapsAndSeveralProcessesGiveTheGeneralPathsOutput) {
  const ScratchDir dir;
  const auto trace = dir / "mixed.raw";
  test::write_file(trace, mixed_trace());
  ASSERT_TRUE(takes_fast_path(trace));
  const auto r = run_command(bin("rtrace") + " process -l -i " + quote(trace));
  EXPECT_NE(r.err.find("trace incomplete"), std::string::npos) << r.err;
  for (const std::string& options : kLeakOptions) {
    expect_same(options + " -i " + quote(trace));
  }
  std::filesystem::create_directory(dir / "fast");
  std::filesystem::create_directory(dir / "general");
  const std::string args = " process -lc -i " + quote(trace) + " -o ";
  ASSERT_EQ(run_command(bin("rtrace") + args + quote(dir / "fast")).status, 0);
  ASSERT_EQ(
      run_command("RTRACE_NO_FAST_PATH=1 " + bin("rtrace") + args + quote(dir / "general")).status,
      0);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "general")) {
    ++files;
    EXPECT_EQ(test::read_file(dir / "fast" / entry.path().filename()),
              test::read_file(entry.path()));
  }
  EXPECT_EQ(files, 3);  // the calls before any process, 100 and 200
}

// An id allocated again while its block is alive: the leaks stage keeps the earlier block (it
// leaked) as well as the later one; a release of an id never allocated ends nothing.
TEST(FastLeaks, AnIdAllocatedTwiceKeepsBothBlocks) {
  const ScratchDir dir;
  const auto trace = dir / "twice.raw";
  test::write_file(trace, test::write_bytes([](TraceSink& w) {
                     TraceHeader header;
                     header.arch = "x86_64";
                     w.header(header);
                     std::uint64_t index = 0;
                     for (const Address id : {0x10, 0x20, 0x10, 0x10}) {
                       CallRecord r;
                       r.call.index = ++index;
                       r.call.kind = CallKind::Alloc;
                       r.call.resource_id = id;
                       r.call.size = 8;
                       r.function = "malloc";
                       w.call(r);
                     }
                     CallRecord release;
                     release.call.index = ++index;
                     release.call.kind = CallKind::Free;
                     release.call.resource_id = 0x30;
                     release.function = "free";
                     w.call(release);
                     w.finish();
                   }));
  ASSERT_TRUE(takes_fast_path(trace));
  const auto r = run_command(bin("rtrace") + " process -l -i " + quote(trace));
  for (const char* call :
       {"\n1. malloc(8) = 0x10\n", "\n3. malloc(8) = 0x10\n", "\n4. malloc(8) = 0x10\n"}) {
    EXPECT_NE(r.out.find(call), std::string::npos) << call << r.out;
  }
  for (const std::string& options : kLeakOptions) {
    expect_same(options + " -i " + quote(trace));
  }
}

// A file large enough to be scanned in two halves side by side (leaks_scan.h), whole, damaged in
// either half and cut short.
TEST(FastLeaks, FilesScannedInTwoHalvesGiveTheGeneralPathsOutput) {
  const ScratchDir dir;
  const auto trace = generate(dir, "big", "--calls 120000 --depth 10 --stacks 300 --seed 11");
  const std::string bytes = test::read_file(trace);
  ASSERT_GT(bytes.size(), LeaksScanSplit{}.min_file_size);
  ASSERT_TRUE(takes_fast_path(trace));
  for (const char* options : {"-l", "-lc", "-lc -s size", "-l --to binary"}) {
    expect_same(std::string(options) + " -i " + quote(trace));
  }
  const auto damaged = dir / "damaged";
  for (const std::size_t at : {bytes.size() / 4 + 1, bytes.size() * 3 / 4 + 3}) {
    std::string corrupt = bytes;
    corrupt.replace(at, 4, "\xFF\xFF\xFF\x7F");
    test::write_file(damaged, corrupt);
    expect_same("-lc -i " + quote(damaged));
  }
  test::write_file(damaged, bytes.substr(0, bytes.size() * 3 / 4));
  expect_same("-lc -i " + quote(damaged));
  // On one CPU: one scan (the same output).
  const auto one_cpu =
      run_command("taskset -c 0 " + bin("rtrace") + " process -lc -i " + quote(trace));
  const auto general =
      run_command("RTRACE_NO_FAST_PATH=1 " + bin("rtrace") + " process -lc -i " + quote(trace));
  EXPECT_EQ(one_cpu.status, 0) << one_cpu.err;
  EXPECT_TRUE(one_cpu.out == general.out);
}

TEST(FastLeaks, DamagedInputGivesTheSameErrorAndPartialResult) {
  const ScratchDir dir;
  const std::string bytes =
      test::read_file(generate(dir, "g", "--calls 3000 --depth 4 --stacks 40 --live 50"));
  const auto damaged = dir / "damaged";
  std::vector<std::size_t> cuts = {1, 2, 5, 15, 40, 80, 123, 1000, 4097, bytes.size() - 1};
  for (std::size_t cut = 997; cut < bytes.size(); cut += bytes.size() / 23) {
    cuts.push_back(cut);
  }
  for (const std::size_t cut : cuts) {
    test::write_file(damaged, bytes.substr(0, cut));
    expect_same("-lc -i " + quote(damaged));
  }
  // Impossible sizes and counts in packet headers and in calls, at spread offsets.
  for (std::size_t at = 301; at + 4 < bytes.size(); at += bytes.size() / 17) {
    std::string corrupt = bytes;
    corrupt.replace(at, 4, "\xFF\xFF\xFF\x7F");
    test::write_file(damaged, corrupt);
    expect_same("-lc -i " + quote(damaged));
    expect_same("-l --strict -i " + quote(damaged));
  }
}

// A second thread that cannot be started is no error: the scan applies its batches on the
// caller's thread (batch_worker.h). Here every new thread's stack, sized by RLIMIT_STACK, is 1 TiB,
// more than the kernel's overcommit heuristic grants (vm.overcommit_memory 0, as on these
// machines): pthread_create fails with EAGAIN, and `rtrace process -l` used to stop with
// "rtrace: Resource temporarily unavailable".
TEST(FastLeaks, WithoutASecondThreadTheOutputIsTheGeneralPaths) {
  const ScratchDir dir;
  const auto trace = generate(dir, "g", "--calls 20000 --depth 3 --stacks 50 --live 100");
  const std::string no_thread = "prlimit --stack=" + std::to_string(std::uint64_t{1} << 40) + " ";
  for (const char* options : {"-l", "-lc"}) {
    const std::string args = std::string(" process ") + options + " -i " + quote(trace);
    const auto fast = run_command(no_thread + bin("rtrace") + args);
    const auto general = run_command("RTRACE_NO_FAST_PATH=1 " + bin("rtrace") + args);
    EXPECT_EQ(fast.status, 0) << fast.err;
    EXPECT_EQ(fast.err, general.err);
    EXPECT_TRUE(fast.out == general.out) << options << ": outputs differ";
  }
}

TEST(FastLeaks, APipeIsReadTheGeneralWay) {
  const ScratchDir dir;
  const auto trace = dir / "mixed.raw";
  test::write_file(trace, mixed_trace());
  for (const char* options : {"-l", "-lc"}) {
    const std::string command = std::string(" process ") + options + " < " + quote(trace);
    const auto fast = run_command(bin("rtrace") + command);
    const auto general = run_command("RTRACE_NO_FAST_PATH=1 " + bin("rtrace") + command);
    EXPECT_EQ(fast.status, 0) << fast.err;
    EXPECT_EQ(fast.out, general.out);
    EXPECT_EQ(fast.err, general.err);
  }
}

}  // namespace
}  // namespace rtrace
