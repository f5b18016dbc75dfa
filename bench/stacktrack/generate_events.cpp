// Writes a synthetic Boost StackTrack raw event file of a realistic shape, for benchmarks.
//
//   rtrace-stacktrack-gen --entries N [--processes P] [--threads T] [--scopes S] [--big-endian]
//                         [--seed X] -o FILE
//
// P processes, each with T threads passing S checkpoints: every checkpoint posts its FLOC/SLOC
// with INFO text the first time it is hit (and again after a next_cycle every 1M entries), then
// hits follow, the processes' entries interleaved. Mostly HIT entries, as in a real trace.
// Everything derives from the seed, so runs are reproducible.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/raw_encoder.h"

namespace {

using rtrace::stacktrack::default_layout;
using rtrace::stacktrack::test::Order;
using rtrace::stacktrack::test::RawEncoder;

struct Shape {
  std::uint64_t entries = 5'000'000;
  unsigned processes = 4;
  unsigned threads = 8;
  unsigned scopes = 500;
  bool big_endian = false;
  std::uint64_t seed = 42;
  std::string output;
};

struct Process {
  std::uint64_t pid = 0;
  std::uint64_t sequence = 0;
  std::uint64_t ticks = 0;
  std::uint64_t write_count = 1;
  std::vector<std::uint64_t> posted;  // write count each scope was last posted with
};

constexpr std::uint64_t kCycle = 1'000'000;
constexpr std::uint64_t kFiles = 20;

class Generator {
 public:
  Generator(const Shape& shape, std::FILE* out)
      : shape_(shape),
        out_(out),
        rng_(shape.seed),
        enc_(default_layout(), shape.big_endian ? Order::Big : Order::Little) {}

  void run() {
    for (unsigned p = 0; p < shape_.processes; ++p) {
      Process process;
      process.pid = 0x1000 + p;
      process.ticks = 1'000'000ULL * (p + 1);
      process.posted.assign(shape_.scopes, 0);
      enc_.process_start(process.pid, 1'000'000, process.ticks, p == 0);
      processes_.push_back(std::move(process));
      count_ += p == 0 ? 4 : 3;
    }
    std::uniform_int_distribution<unsigned> pick_process(0, shape_.processes - 1);
    std::uniform_int_distribution<unsigned> pick_thread(0, shape_.threads - 1);
    std::uniform_int_distribution<unsigned> pick_scope(0, shape_.scopes - 1);
    std::uniform_int_distribution<unsigned> pick_gap(1, 400);
    while (count_ < shape_.entries) {
      Process& p = processes_[pick_process(rng_)];
      if (count_ / kCycle != cycle_) {
        cycle_ = count_ / kCycle;
        next_cycle(p);
      }
      hit(p, pick_scope(rng_), 0x100 + pick_thread(rng_), pick_gap(rng_));
      flush_if_big();
    }
    write(enc_.take());
  }

 private:
  void next_cycle(Process& p) {
    ++p.write_count;
    enc_.entry("PROCINFO", p.pid, 0, {{"pid", p.pid}, {"writeCount", p.write_count}});
    ++count_;
  }

  // A hit of `scope`, posting its file and scope first when this cycle has not seen them.
  void hit(Process& p, unsigned scope, std::uint64_t tid, std::uint64_t gap) {
    const std::uint64_t seq = ++p.sequence;
    if (p.posted[scope] != p.write_count) {
      p.posted[scope] = p.write_count;
      const std::uint64_t file = scope % kFiles;
      enc_.entry("FLOC", p.pid, seq, {{"filenum", file}, {"writeCount", p.write_count}}, true);
      enc_.info(p.pid, seq, fmt::format("src/module_{}/component_{}.cpp", file % 4, file));
      enc_.entry("SLOC", p.pid, seq,
                 {{"scopeIndex", scope},
                  {"style", 3},
                  {"linenum", 10 + scope},
                  {"writeCount", p.write_count},
                  {"filenum", file}},
                 true);
      enc_.info(p.pid, seq,
                fmt::format("namespace_{}::class_{}::method_{}", scope % 7, scope % 31, scope));
      count_ += 6;
    }
    p.ticks += gap;
    enc_.entry("HIT", p.pid, seq, {{"when", p.ticks}, {"scopeIndex", scope}, {"tid", tid}});
    ++count_;
  }

  void flush_if_big() {
    if (enc_.bytes().size() >= (std::size_t{4} << 20)) {
      write(enc_.take());
    }
  }

  void write(const std::string& bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), out_) != bytes.size()) {
      throw std::runtime_error("write failed");
    }
  }

  const Shape& shape_;
  std::FILE* out_;
  std::mt19937_64 rng_;
  RawEncoder enc_;
  std::vector<Process> processes_;
  std::uint64_t count_ = 0;
  std::uint64_t cycle_ = 0;
};

}  // namespace

namespace {

int generate(int argc, char** argv) {
  Shape shape;
  CLI::App app{"Write a synthetic StackTrack raw event file (default layout)"};
  app.add_option("-n,--entries", shape.entries, "Entries to write (at least)");
  app.add_option("--processes", shape.processes, "Processes")->check(CLI::Range(1, 1000));
  app.add_option("--threads", shape.threads, "Threads per process")->check(CLI::Range(1, 60000));
  app.add_option("--scopes", shape.scopes, "Checkpoints per process")->check(CLI::Range(1, 30000));
  app.add_flag("--big-endian", shape.big_endian, "Write big-endian entries");
  app.add_option("--seed", shape.seed, "Random seed");
  app.add_option("-o,--output", shape.output, "Output file (created; never replaced)")->required();
  CLI11_PARSE(app, argc, argv);
  // "x": O_EXCL, so an existing file or a planted symlink is refused.
  std::FILE* out = std::fopen(shape.output.c_str(), "wbx");
  if (out == nullptr) {
    throw std::runtime_error(shape.output + ": cannot create (it must not exist yet)");
  }
  Generator(shape, out).run();
  if (std::fclose(out) != 0) {
    throw std::runtime_error(shape.output + ": write failed");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return generate(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rtrace-stacktrack-gen: %s\n", error.what());
    return 1;
  }
}
