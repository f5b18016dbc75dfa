// Writes a synthetic apitrace trace (Snappy container, version 6) of N calls shaped like a GL
// frame loop: binds, uniforms, small buffer uploads, draws, error checks and a swap per frame.
//   rtrace-gen-apitrace --calls 5000000 -o big.trace
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "trace_encoder.h"

using rtrace::apitrace::test::BitmaskDef;
using rtrace::apitrace::test::EnumDef;
using rtrace::apitrace::test::FunctionDef;
using rtrace::apitrace::test::snappy_chunk;
using rtrace::apitrace::test::TraceEncoder;

namespace {

const EnumDef kGlEnum{1,
                      {{"GL_TEXTURE_2D", 0x0de1},
                       {"GL_TRIANGLES", 4},
                       {"GL_ARRAY_BUFFER", 0x8892},
                       {"GL_NO_ERROR", 0},
                       {"GL_FLOAT", 0x1406}}};
const BitmaskDef kClearMask{0, {{"GL_DEPTH_BUFFER_BIT", 0x100}, {"GL_COLOR_BUFFER_BIT", 0x4000}}};
const FunctionDef kBindTexture{10, "glBindTexture", {"target", "texture"}};
const FunctionDef kUniform4f{11, "glUniform4f", {"location", "v0", "v1", "v2", "v3"}};
const FunctionDef kBufferSubData{12, "glBufferSubData", {"target", "offset", "size", "data"}};
const FunctionDef kDrawArrays{13, "glDrawArrays", {"mode", "first", "count"}};
const FunctionDef kGetError{14, "glGetError", {}};
const FunctionDef kClear{15, "glClear", {"mask"}};
const FunctionDef kSwap{16, "glXSwapBuffers", {"dpy", "drawable"}};

void write_call(TraceEncoder& t, std::uint64_t i) {
  switch (i % 7) {
    case 0: {
      const auto n = t.enter(kBindTexture);
      t.arg(0), t.enumeration(kGlEnum, 0x0de1), t.arg(1), t.uint_value(i % 97), t.end();
      t.leave(n), t.end();
      break;
    }
    case 1: {
      const auto n = t.enter(kUniform4f);
      t.arg(0), t.sint(static_cast<std::int64_t>(i % 5) - 1);
      t.arg(1), t.real32(0.25F), t.arg(2), t.real32(0.5F), t.arg(3), t.real32(1.0F / 3);
      t.arg(4), t.real32(1.0F), t.end();
      t.leave(n), t.end();
      break;
    }
    case 2: {
      const auto n = t.enter(kBufferSubData);
      t.arg(0), t.enumeration(kGlEnum, 0x8892), t.arg(1), t.uint_value(i % 4096);
      t.arg(2), t.uint_value(32), t.arg(3), t.blob(std::string(32, static_cast<char>(i))), t.end();
      t.leave(n), t.end();
      break;
    }
    case 3:
    case 4: {
      const auto n = t.enter(kDrawArrays);
      t.arg(0), t.enumeration(kGlEnum, 4), t.arg(1), t.uint_value(0), t.arg(2);
      t.uint_value(3 * (i % 1000)), t.end();
      t.leave(n), t.end();
      break;
    }
    case 5: {
      const auto n = t.enter(kGetError);
      t.end();
      t.leave(n), t.ret(), t.enumeration(kGlEnum, 0), t.end();
      break;
    }
    default: {
      const bool end_of_frame = i % 700 == 6;
      const auto n = t.enter(end_of_frame ? kSwap : kClear);
      if (end_of_frame) {
        t.arg(0), t.pointer(0x5557f5465800), t.arg(1), t.uint_value(2097154);
      } else {
        t.arg(0), t.bitmask(kClearMask, 0x4100);
      }
      t.end();
      t.leave(n), t.end();
    }
  }
}

}  // namespace

int generate(int argc, char** argv) {
  CLI::App app{"Write a synthetic apitrace trace for benchmarks"};
  std::uint64_t calls = 5000000;
  std::string output;
  app.add_option("--calls", calls, "Number of calls");
  app.add_option("-o,--output", output, "Trace file to write")->required();
  CLI11_PARSE(app, argc, argv);

  std::FILE* file = std::fopen(output.c_str(), "wbx");  // never over an existing file
  if (file == nullptr) {
    fmt::print(stderr, "rtrace-gen-apitrace: cannot create {}\n", output);
    return 1;
  }
  TraceEncoder t(6, {{"process.commandLine", ""}, {"process.name", "/usr/bin/bench"}});
  std::string out = "at";
  constexpr std::size_t kChunk = std::size_t{1} << 20;  // as apitrace's writer
  std::string pending;
  for (std::uint64_t i = 0; i < calls; ++i) {
    write_call(t, i);
    if (t.stream().size() >= kChunk) {
      pending += t.take();
      while (pending.size() >= kChunk) {
        out += snappy_chunk(std::string_view(pending).substr(0, kChunk));
        pending.erase(0, kChunk);
      }
      std::fwrite(out.data(), 1, out.size(), file);
      out.clear();
    }
  }
  pending += t.take();
  if (!pending.empty()) {
    out += snappy_chunk(pending);
  }
  std::fwrite(out.data(), 1, out.size(), file);
  return std::fclose(file) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  try {
    return generate(argc, argv);
  } catch (const std::exception& error) {
    fmt::print(stderr, "rtrace-gen-apitrace: {}\n", error.what());
    return 1;
  }
}
