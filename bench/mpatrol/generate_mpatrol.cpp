// Writes a synthetic mpatrol tracing file (MTRC, mpatrol 1.5.1 layout, LP64) of a given size,
// for benchmarking `rtrace mptrace`.
//
//   rtrace-gen-mpatrol --megabytes N [--live L] [--threads T] [--seed S] -o FILE
//
// The shape is that of a threaded program traced with the mpatrol.h macros: a working set of L
// live blocks that the program keeps allocating into, resizing and freeing (about 47 % A, 10 % R,
// 43 % F, until L blocks are live), thread ids of pthread_self() size, and call sites spread over
// 400 functions in 60 files (more than the 32 slots of each name cache, so names are evicted and
// redefined). The start-up I and H records come first, as in real traces. Everything derives from
// the seed.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "formats/mpatrol/mpatrol_writer.h"
#include "io/output_stream.h"

namespace {

using rtrace::mpatrol::SourceInfo;
using rtrace::mpatrol::TraceWriter;

struct Shape {
  std::uint64_t megabytes = 100;
  unsigned live = 10000;
  unsigned threads = 8;
  std::uint64_t seed = 42;
  std::string output;
};

struct CallSite {
  std::string function;
  std::string file;
  std::uint64_t line;
};

std::vector<CallSite> make_sites(std::mt19937_64& rng) {
  std::vector<CallSite> sites;
  std::uniform_int_distribution<std::uint64_t> line(10, 3000);
  for (unsigned i = 0; i < 400; ++i) {
    sites.push_back({"module_" + std::to_string(i % 60) + "_function_" + std::to_string(i),
                     "src/module_" + std::to_string(i % 60) + ".c", line(rng)});
  }
  return sites;
}

struct Block {
  std::uint64_t index = 0;
  std::uint64_t address = 0;
};

void generate(const Shape& shape) {
  std::mt19937_64 rng(shape.seed);
  const std::vector<CallSite> sites = make_sites(rng);
  std::vector<std::uint64_t> threads;
  for (unsigned t = 0; t < shape.threads; ++t) {
    threads.push_back(140737349403456ULL - t * 0x801000ULL);  // glibc pthread_self() values
  }
  // Call sites are skewed: a few hot ones, a long tail (as in real programs).
  std::geometric_distribution<unsigned> site_pick(0.02);
  std::uniform_int_distribution<unsigned> thread_pick(0, shape.threads - 1);
  std::uniform_int_distribution<unsigned> action(0, 99);
  std::uniform_int_distribution<std::uint64_t> size_pick(1, 512);
  std::uniform_int_distribution<std::size_t> live_pick(0, shape.live - 1);

  rtrace::OutputStream out(shape.output, {});
  TraceWriter writer({.word_size = 8, .big_endian = false, .version = 10501});
  for (std::uint64_t i = 0; i < 10; ++i) {
    writer.internal(0x7ffff7b77000ULL - i * 0x4000, 16384);
    writer.reserve(0x555555589000ULL + i * 0x1000, 4096);
  }
  const std::uint64_t target = shape.megabytes * 1'000'000;
  std::uint64_t written = 0;
  std::uint64_t next_index = 45;
  std::uint64_t next_address = 0x55555558a000ULL;
  std::vector<Block> live;
  live.reserve(shape.live);
  while (written + writer.bytes().size() < target) {
    const CallSite& site = sites[site_pick(rng) % sites.size()];
    const SourceInfo source{threads[thread_pick(rng)], site.function, site.file, site.line};
    const unsigned what = action(rng);
    const std::uint64_t size = size_pick(rng);
    if (live.size() < shape.live && (what < 47 || live.empty())) {
      live.push_back({next_index, next_address});
      writer.alloc(next_index++, next_address, size, source);
      next_address += (size + 15) & ~std::uint64_t{15};
    } else if (what < 57) {
      Block& block = live[live_pick(rng) % live.size()];
      block.address = next_address;
      next_address += (size + 15) & ~std::uint64_t{15};
      writer.realloc(block.index, block.address, size, source);
    } else {
      const std::size_t victim = live_pick(rng) % live.size();
      writer.free(live[victim].index, source);
      live[victim] = live.back();
      live.pop_back();
    }
    if (writer.bytes().size() >= (std::size_t{1} << 20)) {
      written += writer.bytes().size();
      out.write(writer.bytes());
      writer.bytes().clear();
    }
  }
  writer.end_marker();
  out.write(writer.bytes());
  out.commit();
}

int run(int argc, char** argv) {
  Shape shape;
  CLI::App app{"Write a synthetic mpatrol tracing file (MTRC) for benchmarks"};
  app.add_option("-m,--megabytes", shape.megabytes, "Approximate size in MB (10^6 bytes)");
  app.add_option("--live", shape.live, "Blocks allocated at any time")->check(CLI::PositiveNumber);
  app.add_option("--threads", shape.threads, "Threads making the calls")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", shape.seed, "Random seed");
  app.add_option("-o,--output", shape.output, "Output file")->required();
  CLI11_PARSE(app, argc, argv);
  generate(shape);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "rtrace-gen-mpatrol: %s\n", error.what());
    return 1;
  }
}
