// Writes a synthetic sp-rtrace binary trace of a realistic shape, for benchmarks.
//
//   rtrace-gen-trace --calls N --depth D --stacks K [--live L] [--seed S] [--every-stack] -o FILE
//
// The trace looks like what the tracer records for an allocation-heavy program: a working set of
// live blocks that the program keeps allocating into and freeing from (so addresses are reused),
// malloc/calloc/realloc/free in proportions typical of C and C++ code, K distinct call stacks of
// depth D spread over a few modules, a monotonic millisecond clock. Roughly 1 in 4000 allocations
// is never freed (leaks). Everything derives from the seed, so runs are reproducible. With
// --every-stack the first K allocations use each stack once (then as above), so that the trace
// holds exactly K distinct backtraces when it has at least K allocations.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "formats/sprtrace_binary/binary_writer.h"
#include "io/output_stream.h"

namespace {

using rtrace::Address;

struct Shape {
  std::uint64_t calls = 2'000'000;
  unsigned depth = 10;
  unsigned stacks = 5000;
  unsigned live = 20000;
  std::uint64_t seed = 42;
  bool every_stack = false;
  std::string output;
};

// Module layout: an executable and three libraries, each a text segment of 1 MiB.
constexpr Address kExe = 0x400000;
constexpr Address kLibs[] = {0x7f0000100000, 0x7f0000300000, 0x7f0000500000};

std::vector<std::vector<rtrace::Frame>> make_stacks(const Shape& shape, std::mt19937_64& rng) {
  std::uniform_int_distribution<Address> offset(0x100, 0xfff00);
  std::vector<std::vector<rtrace::Frame>> stacks(shape.stacks);
  for (auto& frames : stacks) {
    frames.resize(shape.depth);
    for (unsigned i = 0; i < shape.depth; ++i) {
      // Inner frames in the program, outer ones through libc's start-up code.
      const Address base = i + 2 >= shape.depth ? kLibs[0] : (i % 3 == 2 ? kLibs[1] : kExe);
      frames[i].address = base + offset(rng);
    }
  }
  return stacks;
}

void write_environment(rtrace::TraceSink& sink) {
  rtrace::TraceHeader header;
  header.arch = "x86_64";
  sink.header(header);

  rtrace::ProcessInfo process;
  process.pid = 4242;
  process.name = "./synthetic";
  process.start.seconds = 1'795'000'000;
  process.backtrace_depth = 10;
  sink.process(process);

  sink.module(rtrace::ModuleInfo{0, 1, 0, "main"});
  sink.mapping(rtrace::Mapping{kExe, kExe + 0x100000, "/usr/bin/synthetic"});
  sink.mapping(rtrace::Mapping{kLibs[0], kLibs[0] + 0x100000, "/usr/lib/libc.so.6"});
  sink.mapping(rtrace::Mapping{kLibs[1], kLibs[1] + 0x100000, "/usr/lib/libstdc++.so.6"});
  sink.mapping(rtrace::Mapping{kLibs[2], kLibs[2] + 0x100000, "/usr/lib/libz.so.1"});
  sink.module(rtrace::ModuleInfo{1, 1, 0, "memory"});
  sink.resource_type(rtrace::ResourceType{1, 0, "memory", "memory allocation in bytes"});
}

class Generator {
 public:
  Generator(const Shape& shape, rtrace::TraceSink& sink)
      : shape_(shape), sink_(sink), rng_(shape.seed), stacks_(make_stacks(shape, rng_)) {}

  void run() {
    write_environment(sink_);
    std::uniform_int_distribution<unsigned> percent(0, 99);
    while (index_ < shape_.calls) {
      const bool full = live_.size() >= shape_.live;
      const unsigned roll = percent(rng_);
      if (live_.empty() || (!full && roll < 50)) {
        allocate(roll < 5 ? "calloc" : "malloc");
      } else if (roll < 55) {
        reallocate();
      } else {
        release();
      }
    }
    sink_.finish();
  }

 private:
  std::uint64_t pick_size() {
    // Mostly small blocks, a long tail of large ones.
    std::geometric_distribution<unsigned> bits(0.25);
    return std::uint64_t{8} << std::min(bits(rng_), 16U) | (rng_() & 7);
  }

  const std::vector<rtrace::Frame>& pick_stack() {
    if (shape_.every_stack && unused_stack_ < shape_.stacks) {
      return stacks_[unused_stack_++];
    }
    // A few hot call sites do most of the allocating (Zipf-like).
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double x = u(rng_);
    return stacks_[static_cast<std::size_t>(x * x * x * shape_.stacks) % shape_.stacks];
  }

  Address new_address() {
    if (!free_addresses_.empty() && (rng_() & 3) != 0) {
      const Address a = free_addresses_.back();
      free_addresses_.pop_back();
      return a;
    }
    next_address_ += 0x40;
    return next_address_;
  }

  void emit(std::string_view function, rtrace::CallKind kind, Address id, std::uint64_t size,
            std::span<const rtrace::Frame> frames) {
    ++index_;
    if ((index_ & 127) == 0) {
      ++clock_ms_;
    }
    rtrace::CallRecord record;
    record.call.index = index_;
    record.call.resource_id = id;
    record.call.size = size;
    record.call.timestamp_ns = clock_ms_ * 1'000'000ULL;
    record.call.resource_type = 1;
    record.call.kind = kind;
    record.function = function;
    record.frames = frames;
    sink_.call(record);
  }

  void allocate(std::string_view function) {
    const Address id = new_address();
    emit(function, rtrace::CallKind::Alloc, id, pick_size(), pick_stack());
    // About one allocation in 4000 leaks: it is never freed.
    if (rng_() % 4000 != 0) {
      live_.push_back(id);
    }
  }

  std::size_t pick_live() { return rng_() % live_.size(); }

  void release() {
    const std::size_t i = pick_live();
    const Address id = live_[i];
    live_[i] = live_.back();
    live_.pop_back();
    free_addresses_.push_back(id);
    emit("free", rtrace::CallKind::Free, id, 0, {});
  }

  void reallocate() {
    const std::size_t i = pick_live();
    const Address old_id = live_[i];
    emit("realloc", rtrace::CallKind::Free, old_id, 0, {});
    free_addresses_.push_back(old_id);
    live_[i] = new_address();
    emit("realloc", rtrace::CallKind::Alloc, live_[i], pick_size(), pick_stack());
  }

  const Shape& shape_;
  rtrace::TraceSink& sink_;
  std::mt19937_64 rng_;
  std::vector<std::vector<rtrace::Frame>> stacks_;
  std::vector<Address> live_;
  std::vector<Address> free_addresses_;
  Address next_address_ = 0x55550000;
  std::uint64_t index_ = 0;
  unsigned unused_stack_ = 0;  // with --every-stack: the next stack no call has used yet
  std::uint32_t clock_ms_ = 3'600'000;
};

}  // namespace

int main(int argc, char** argv) {
  Shape shape;
  CLI::App app{"Write a synthetic sp-rtrace binary trace for benchmarks"};
  app.add_option("-n,--calls", shape.calls, "Number of call records");
  app.add_option("-d,--depth", shape.depth, "Frames per backtrace")->check(CLI::Range(1, 256));
  app.add_option("-k,--stacks", shape.stacks, "Distinct call stacks")
      ->check(CLI::Range(1, 10000000));
  app.add_option("-l,--live", shape.live, "Largest number of live blocks")
      ->check(CLI::Range(1, 100000000));
  app.add_option("-s,--seed", shape.seed, "Random seed");
  app.add_flag("--every-stack", shape.every_stack,
               "Use every stack once before drawing them at random (exactly K distinct stacks)");
  app.add_option("-o,--output", shape.output, "Output file")->required();
  CLI11_PARSE(app, argc, argv);

  try {
    rtrace::OutputStream out(shape.output, {});
    rtrace::BinaryWriter writer(out);
    Generator(shape, writer).run();
    out.commit();
  } catch (const std::exception& error) {
    fmt::print(stderr, "rtrace-gen-trace: {}\n", error.what());
    return 1;
  }
  return 0;
}
