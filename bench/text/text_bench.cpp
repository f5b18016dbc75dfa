// Throughput of the text writer and reader on a generated trace.
//
//   rtrace-text-bench [calls] [directory] > /dev/null
//
// Writes `calls` (default 2,000,000) generated calls with 10-frame backtraces as text to standard
// output (the writer alone, without a disk in the way when that goes to /dev/null) and into a
// file in `directory` (default: a private directory made under $TMPDIR), reads that file back, and
// converts it text -> text. Prints MB/s of text for each step on standard error, by wall clock
// and by CPU time (the machine may be shared).
//
//   rtrace-text-bench --binary TRACE.raw > /dev/null
//
// Reads a binary trace (e.g. from rtrace-gen-trace) alone, then converted to text on standard
// output: does the text writer slow the binary reader down?
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_text/text_reader.h"
#include "formats/sprtrace_text/text_writer.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"

namespace {

using rtrace::Address;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kDepth = 10;

// Counts calls and otherwise ignores what the reader delivers.
class CountingSink final : public rtrace::TraceSink {
 public:
  void call(const rtrace::CallRecord& record) override {
    ++calls;
    frames += record.frames.size();
  }
  void finish() override {}

  std::uint64_t calls = 0;
  std::uint64_t frames = 0;
};

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Elapsed {
  double wall = 0;
  double cpu = 0;
};

class Stopwatch {
 public:
  Elapsed elapsed() const {
    return {std::chrono::duration<double>(Clock::now() - wall_).count(), cpu_seconds() - cpu_};
  }

 private:
  Clock::time_point wall_ = Clock::now();
  double cpu_ = cpu_seconds();
};

void report(const char* what, std::uintmax_t bytes, Elapsed t) {
  const double mb = static_cast<double>(bytes) / 1e6;
  std::fprintf(stderr, "%-30s %7.1f MB: wall %6.3f s = %6.1f MB/s, cpu %6.3f s = %6.1f MB/s\n",
               what, mb, t.wall, mb / t.wall, t.cpu, mb / t.cpu);
}

void write_trace(rtrace::TraceSink& sink, std::uint64_t calls) {
  rtrace::TraceHeader header;
  header.arch = "x86_64";
  header.metadata.set("sprtrace.timestamp", "2026.11.21 11:09:09");
  sink.header(header);
  rtrace::ProcessInfo process;
  process.pid = 4242;
  process.name = "./synthetic";
  process.backtrace_depth = kDepth;
  sink.process(process);
  sink.resource_type({.id = 1, .flags = 0, .type = "memory", .description = "bytes"});
  sink.mapping({.from = 0x400000, .to = 0x500000, .path = "/usr/bin/synthetic"});

  std::array<rtrace::Frame, kDepth> frames{};
  for (std::uint64_t i = 1; i <= calls; ++i) {
    // A few hundred distinct stacks of realistic addresses.
    for (std::size_t f = 0; f < kDepth; ++f) {
      frames[f].address =
          (f < 7 ? 0x401000 : 0x7f7569054000) + ((i % 397) * 131 + f * 4099) % 0xfff00;
    }
    rtrace::CallRecord record;
    record.call.index = i;
    record.call.timestamp_ns = (26'838'233 + i / 1000) * 1'000'000;
    record.call.resource_id = 0x15dcf2a0 + (i % 5000) * 0x40;
    record.call.resource_type = 1;
    const bool alloc = i % 2 == 1;
    record.call.kind = alloc ? rtrace::CallKind::Alloc : rtrace::CallKind::Free;
    record.call.size = alloc ? 16 + i % 4000 : 0;
    record.function = alloc ? "malloc" : "free";
    record.frames = frames;
    sink.call(record);
  }
  sink.finish();
}

}  // namespace

int binary_to_text(const std::string& raw) {
  const std::uintmax_t size = std::filesystem::file_size(raw);
  rtrace::StderrDiagnostics diagnostics;
  Stopwatch watch;
  CountingSink counter;
  {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::open_input(raw);
    rtrace::read_sprtrace_binary(*input, counter, diagnostics);
  }
  report("binary read (raw -> nothing)", size, watch.elapsed());

  watch = Stopwatch{};
  {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::open_input(raw);
    rtrace::OutputStream out;
    rtrace::TextWriter writer(out, {.origin = "rtrace bench"});
    rtrace::read_sprtrace_binary(*input, writer, diagnostics);
    out.commit();
  }
  report("binary -> text on stdout", size, watch.elapsed());
  std::fprintf(stderr, "(MB/s of binary input) calls %llu\n",
               static_cast<unsigned long long>(counter.calls));
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--binary") {
    return binary_to_text(argv[2]);
  }
  const std::uint64_t calls = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  // Our own private directory unless one is given: never a predictable name in /tmp.
  std::string scratch;
  if (argc <= 2) {
    scratch = (std::filesystem::temp_directory_path() / "rtrace-text-bench.XXXXXX").string();
    if (::mkdtemp(scratch.data()) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
  }
  const std::filesystem::path directory =
      argc > 2 ? std::filesystem::path(argv[2]) : std::filesystem::path(scratch);
  const std::string written = (directory / "text-bench.txt").string();
  const std::string converted = (directory / "text-bench.txt.txt").string();

  Stopwatch watch;
  {
    rtrace::OutputStream out;
    rtrace::TextWriter writer(out, {.origin = "rtrace bench"});
    write_trace(writer, calls);
    out.commit();
  }
  const Elapsed to_stdout = watch.elapsed();

  watch = Stopwatch{};
  {
    rtrace::OutputStream out(written, {});
    rtrace::TextWriter writer(out, {.origin = "rtrace bench"});
    write_trace(writer, calls);
    out.commit();
  }
  const Elapsed to_file = watch.elapsed();
  const std::uintmax_t size = std::filesystem::file_size(written);
  report("write (generated -> stdout)", size, to_stdout);
  report("write (generated -> file)", size, to_file);

  watch = Stopwatch{};
  CountingSink counter;
  rtrace::StderrDiagnostics diagnostics;
  {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::open_input(written);
    rtrace::read_sprtrace_text(*input, counter, diagnostics);
  }
  report("read (text -> nothing)", size, watch.elapsed());

  watch = Stopwatch{};
  {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::open_input(written);
    rtrace::OutputStream out(converted, {written});
    rtrace::TextWriter writer(out, {.origin = "rtrace bench"});
    rtrace::read_sprtrace_text(*input, writer, diagnostics);
    out.commit();
  }
  report("text -> text (file to file)", size, watch.elapsed());
  std::fprintf(stderr, "calls %llu, frames %llu\n", static_cast<unsigned long long>(counter.calls),
               static_cast<unsigned long long>(counter.frames));

  const bool same = std::filesystem::file_size(converted) == size;
  std::filesystem::remove(written);
  std::filesystem::remove(converted);
  if (!scratch.empty()) {
    std::filesystem::remove(scratch);
  }
  return same && counter.calls == calls ? 0 : 1;
}
