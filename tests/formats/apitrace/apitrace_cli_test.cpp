// `rtrace apitrace dump|info` as a user runs it: every fixture in every mode apitrace's outputs
// were recorded for, byte for byte, through the real binary; other containers; damaged files.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_encoder.h"

namespace rtrace::apitrace::test {
namespace {

using rtrace::test::fixture;
using rtrace::test::read_file;
using rtrace::test::run_command;
using rtrace::test::ScratchDir;
using rtrace::test::write_file;

std::string rtrace_bin() {
  return (rtrace::test::build_dir() / "bin" / "rtrace").string();
}
std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

struct Mode {
  const char* expected;  // file in the case's fixture folder
  const char* options;
};

const Mode kModes[] = {
    {"dump.txt", "dump --color=never"},
    {"dump_verbose.txt", "dump --color=never -v"},
    {"dump_thread_ids.txt", "dump --color=never --thread-ids"},
    {"dump_call_nos_no.txt", "dump --color=never --call-nos=no"},
    {"dump_arg_names_no.txt", "dump --color=never --arg-names=no"},
    {"dump_multiline_no.txt", "dump --color=never --multiline=no"},
    {"dump_color_always.txt", "dump --color=always"},
    {"dump_calls_subset.txt", "dump --color=never --calls=0-3,20,46,54,112"},
    {"dump_grep_glTex.txt", "dump --color=never --grep='^glTex'"},
    {"info.json", "info"},
    {"info_frames.json", "info --dump-frames"},
};

const char* const kCases[] = {"glx_calls", "egl_gles2", "synthetic_writer"};

TEST(ApitraceCli, EveryFixtureInEveryRecordedMode) {
  std::size_t compared = 0;
  for (const char* name : kCases) {
    const std::filesystem::path dir = fixture(std::string("apitrace/") + name);
    for (const Mode& mode : kModes) {
      if (!std::filesystem::exists(dir / mode.expected)) {
        continue;
      }
      // apitrace was run in the case's folder with the trace's bare name (info prints it).
      const auto r = run_command("cd " + quote(dir) + " && " + rtrace_bin() + " apitrace " +
                                 mode.options + " " + name + ".trace");
      ASSERT_EQ(r.status, 0) << name << " " << mode.options << ": " << r.err;
      EXPECT_EQ(r.err, "") << name << " " << mode.options;
      EXPECT_EQ(r.out, read_file(dir / mode.expected)) << name << " " << mode.options;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3U * 8 + 3);  // 8 modes each, plus the three glx_calls extras
}

// What apitrace's dump printed for the calls `numbers` alone: its property lines, then each of
// those calls' lines (a call runs from its numbered line to the next numbered line, so its
// backtrace, the continuation lines of its multi-line strings and the blank line after a frame
// come with it).
std::string dump_of_calls(const std::string& dump, const std::set<std::uint64_t>& numbers) {
  std::string out;
  std::istringstream lines(dump);
  bool in_selected_call = false;
  bool in_properties = true;
  for (std::string line; std::getline(lines, line);) {
    if (in_properties && line.starts_with("// ")) {
      out += line + "\n";
      continue;
    }
    in_properties = false;
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') {
      in_selected_call = numbers.contains(std::stoull(line));
    }
    if (in_selected_call) {
      out += line + "\n";
    }
  }
  return out;
}

struct CallSetCase {
  const char* trace;  // case folder and trace name
  std::string options;
  std::set<std::uint64_t> calls;  // the calls apitrace's rules select
};

// Kinds of call, steps and files, checked against what apitrace's dump printed for those calls.
TEST(ApitraceCli, CallSetsSelectWhatApitraceSelects) {
  const ScratchDir work;
  write_file(work / "subset.txt", "0-3\n20 46\n54,112\n");
  write_file(work / "frames.txt", "frame\n");
  const std::string subset = quote(work / "subset.txt");
  const std::vector<CallSetCase> cases = {
      // eglSwapBuffers ends the only frame.
      {"egl_gles2", "--calls=frame", {44}},
      // glClear and glDrawArrays draw; glClearColor does not.
      {"egl_gles2", "--calls=draw", {38, 41}},
      {"egl_gles2", "--calls=render,frame", {38, 41, 44}},
      {"egl_gles2", "--calls=0-10/5", {0, 5, 10}},
      {"egl_gles2", "--calls='*/20'", {0, 20, 40}},
      {"egl_gles2", "--calls=48-", {48, 49, 50, 51, 52}},
      // glClear (twice), glDrawArrays, glDrawElements, glEnd, and glClear after the first frame.
      {"glx_calls", "--calls=draw", {20, 21, 92, 95, 110, 125}},
      {"glx_calls", "--calls=0-100/draw", {20, 21, 92, 95}},
      // glXSwapBuffers ends a frame and swaps the render target; glFlush and glFinish do neither.
      {"glx_calls", "--calls=frame", {124, 126}},
      {"glx_calls", "--calls=fbo", {124, 126}},
      {"glx_calls", "--calls=@" + subset, {0, 1, 2, 3, 20, 46, 54, 112}},
      {"glx_calls", "--calls=@" + quote(work / "frames.txt") + ",1", {1, 124, 126}},
      {"glx_calls", "--calls=0-3 --calls=20,46 --calls=54,112", {0, 1, 2, 3, 20, 46, 54, 112}},
  };
  for (const CallSetCase& c : cases) {
    const std::filesystem::path dir = fixture(std::string("apitrace/") + c.trace);
    const auto r = run_command(rtrace_bin() + " apitrace dump --color=never " + c.options + " " +
                               quote(dir / (std::string(c.trace) + ".trace")));
    ASSERT_EQ(r.status, 0) << c.options << ": " << r.err;
    EXPECT_EQ(r.out, dump_of_calls(read_file(dir / "dump.txt"), c.calls)) << c.options;
  }
  // The same set from a file gives exactly apitrace's own output for it.
  const std::filesystem::path glx = fixture("apitrace/glx_calls");
  const auto r = run_command(rtrace_bin() + " apitrace dump --color=never --calls=@" + subset +
                             " " + quote(glx / "glx_calls.trace"));
  EXPECT_EQ(r.out, read_file(glx / "dump_calls_subset.txt"));
}

TEST(ApitraceCli, BadCallSetsAndCallSetFilesAreNamed) {
  const auto trace = quote(fixture("apitrace/egl_gles2/egl_gles2.trace"));
  const ScratchDir work;
  auto r = run_command(rtrace_bin() + " apitrace dump --calls=@" + quote(work / "none.txt") + " " +
                       trace);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  const std::string none = (work / "none.txt").string();
  EXPECT_EQ(r.err, "rtrace: " + none + ": cannot read the call set file (--calls=@" + none +
                       "): No such file or directory\n");
  write_file(work / "bad.txt", "1-3\n\n5 drawing\n");
  r = run_command(rtrace_bin() + " apitrace dump --calls=@" + quote(work / "bad.txt") + " " +
                  trace);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "rtrace: " + (work / "bad.txt").string() +
                       ":3: cannot read the call set: 'drawing' is not a kind of call (frame, "
                       "draw, render, fbo, rendertarget)\n");
}

TEST(ApitraceCli, BlobsAreWrittenBesideTheDump) {
  for (const char* name : {"egl_gles2", "synthetic_writer"}) {
    const std::filesystem::path dir = fixture(std::string("apitrace/") + name);
    const ScratchDir work;
    const auto r = run_command("cd " + quote(work.path()) + " && " + rtrace_bin() +
                               " apitrace dump --color=never --blobs " +
                               quote(dir / (std::string(name) + ".trace")));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, read_file(dir / "dump_blobs.txt")) << name;
    std::size_t blobs = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "blobs")) {
      const auto ours = work.path() / entry.path().filename();
      ASSERT_TRUE(std::filesystem::exists(ours)) << ours;
      EXPECT_EQ(read_file(ours), read_file(entry.path())) << ours;
      ++blobs;
    }
    EXPECT_EQ(blobs, static_cast<std::size_t>(
                         std::distance(std::filesystem::directory_iterator(work.path()), {})));
  }
}

// The fixtures' decompressed streams in the other containers apitrace reads.
TEST(ApitraceCli, OtherContainersOfTheFixtureStreams) {
  const ScratchDir work;
  for (const char* name : {"egl_gles2", "synthetic_writer"}) {
    const std::filesystem::path dir = fixture(std::string("apitrace/") + name);
    const std::string stream = read_file(dir / (std::string(name) + ".stream.bin"));
    const std::vector<std::pair<std::string, std::string>> files = {
        {"Zlib", gzip_container(stream)},
        {"Zstd", zstd_container(stream)},
        {"Brotli", brotli_container(stream)}};
    for (const auto& [type, bytes] : files) {
      const auto path = work / (std::string(name) + "." + type);
      write_file(path, bytes);
      auto r = run_command(rtrace_bin() + " apitrace dump --color=never " + quote(path));
      ASSERT_EQ(r.status, 0) << type << ": " << r.err;
      EXPECT_EQ(r.out, read_file(dir / "dump.txt")) << name << " " << type;
      r = run_command(rtrace_bin() + " apitrace info " + quote(path));
      EXPECT_NE(r.out.find("\"ContainerType\": \"" + type + "\""), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("\"ActualDataSize\": " + std::to_string(stream.size())),
                std::string::npos)
          << r.out;
    }
  }
}

// `rtrace process`, `report` and `export` read every container by content, as `rtrace apitrace`
// does: the same trace in each gives exactly what its Snappy original gives.
TEST(ApitracePipeline, EveryContainerReadsAsTheSnappyOriginal) {
  const ScratchDir work;
  for (const char* name : {"egl_gles2", "synthetic_writer"}) {
    const std::filesystem::path dir = fixture(std::string("apitrace/") + name);
    const std::string stream = read_file(dir / (std::string(name) + ".stream.bin"));
    const std::string snappy = quote(dir / (std::string(name) + ".trace"));
    const std::vector<std::pair<std::string, std::string>> files = {
        {"gzip", gzip_container(stream)},
        {"zstd", zstd_container(stream)},
        {"brotli", brotli_container(stream)},
        {"uncompressed", stream}};
    for (const char* command : {"process -i", "process -l -i", "report -i", "export chrome -i"}) {
      const auto original = run_command(rtrace_bin() + " " + command + " " + snappy);
      ASSERT_EQ(original.status, 0) << command << ": " << original.err;
      EXPECT_NE(original.out, "") << command;
      for (const auto& [type, bytes] : files) {
        const auto path = work / (std::string(name) + "." + type);
        write_file(path, bytes);
        const auto r = run_command(rtrace_bin() + " " + command + " " + quote(path));
        EXPECT_EQ(r.status, 0) << name << " " << type << " " << command << ": " << r.err;
        EXPECT_EQ(r.err, "") << name << " " << type << " " << command;
        EXPECT_EQ(r.out, original.out) << name << " " << type << " " << command;
      }
    }
  }
  // What the pipeline read is the trace: its calls, as objects.
  const auto r = run_command(rtrace_bin() + " process -i " + quote(work / "egl_gles2.brotli"));
  EXPECT_NE(r.out.find("16. glGenTextures<texture>(1) = 0x100000001\n"), std::string::npos)
      << r.out;
}

TEST(ApitracePipeline, DamagedAndForeignCompressedInput) {
  const ScratchDir work;
  const std::string stream = read_file(fixture("apitrace/egl_gles2") / "egl_gles2.stream.bin");
  // Bytes that are no trace, plain or compressed, are no trace whatever the container.
  const std::string noise(4096, '\x5a');
  for (const auto& [type, bytes] :
       std::vector<std::pair<std::string, std::string>>{{"plain", noise},
                                                        {"gzip", gzip_container(noise)},
                                                        {"brotli", brotli_container(noise)}}) {
    const auto path = work / ("noise." + type);
    write_file(path, bytes);
    const auto r = run_command(rtrace_bin() + " process -i " + quote(path));
    EXPECT_EQ(r.status, 1) << type;
    EXPECT_EQ(r.err, "rtrace: " + path.string() + ":0: not a trace in any format rtrace reads\n")
        << type;
  }
  // A cut Brotli container: what decompressed is processed, the cut is a warning, and the event
  // it cut short (a large blob) an error.
  std::string brotli = brotli_container(stream);
  brotli.resize(brotli.size() * 2 / 3);
  const auto cut = work / "cut.brotli";
  write_file(cut, brotli);
  const auto r = run_command(rtrace_bin() + " process -i " + quote(cut));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("13. eglQuerySurface({call})\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("rtrace: " + cut.string() + ":" + std::to_string(brotli.size()) +
                       ": warning: the Brotli stream ends early (truncated file)\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(corrupt or truncated trace)\n"), std::string::npos) << r.err;
}

// A few kilobytes of Brotli that expand to 120 MB of valid calls (each with a 40 MB blob) stop
// at the same 1000-to-1 limit as gzip and zstd, after the calls decoded before it.
TEST(ApitracePipeline, BrotliDecompressionBombIsStoppedUnlessTheLimitIsRaised) {
  const FunctionDef upload{1, "upload", {"data"}};
  TraceEncoder t(6);
  for (int i = 0; i < 3; ++i) {
    const auto call = t.enter(upload);
    t.arg(0), t.blob(std::string(std::size_t{40} << 20, '\0')), t.end();
    t.leave(call), t.end();
  }
  const std::string bomb = brotli_container(t.stream(), 1);
  ASSERT_LT(bomb.size(), std::size_t{100} << 10);
  const ScratchDir work;
  const auto path = work / "bomb.brotli";
  write_file(path, bomb);

  const auto stopped = run_command(rtrace_bin() + " apitrace dump --color=never " + quote(path));
  EXPECT_EQ(stopped.status, 1);
  EXPECT_EQ(stopped.out, "0 upload(data = blob(41943040))\n") << stopped.out;
  EXPECT_NE(stopped.err.find("rtrace: " + path.string() + ":"), std::string::npos) << stopped.err;
  EXPECT_NE(stopped.err.find(": Brotli data expands to more than 1000 times its compressed size (a "
                             "decompression bomb?); stopped there. Set RTRACE_MAX_RATIO to raise "
                             "the limit (0: no limit)\n"),
            std::string::npos)
      << stopped.err;

  const auto allowed = run_command("RTRACE_MAX_RATIO=0 " + rtrace_bin() +
                                   " apitrace dump --color=never " + quote(path));
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_EQ(allowed.out,
            "0 upload(data = blob(41943040))\n1 upload(data = blob(41943040))\n"
            "2 upload(data = blob(41943040))\n");
}

TEST(ApitraceCli, TruncatedTraceKeepsWhatCameBeforeAndWarns) {
  const std::filesystem::path dir = fixture("apitrace/glx_calls");
  const std::string whole = read_file(dir / "glx_calls.trace");
  const ScratchDir work;
  const auto path = work / "cut.trace";
  write_file(path, whole.substr(0, 991591 + 4 + 1000));  // 1000 bytes into chunk 1
  const auto r = run_command(rtrace_bin() + " apitrace dump --color=never " + quote(path));
  // The cut falls inside the 1.44 MB blob of call 46, which crosses into chunk 1: its length is
  // more than what is left, an error after the warning.
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string expected = read_file(dir / "dump.txt");
  // Everything before call 46 is there.
  const std::size_t until = expected.find("\n46 ");
  ASSERT_NE(until, std::string::npos);
  EXPECT_EQ(r.out.substr(0, until + 1), expected.substr(0, until + 1));
  EXPECT_EQ(r.err.rfind("rtrace: " + path.string() +
                            ":991591: warning: the file ends inside its "
                            "last Snappy chunk",
                        0),
            0U)
      << r.err;
  EXPECT_NE(r.err.find("\nrtrace: " + path.string() +
                       ":105086: a length or count of 1440000 is larger than the 944541 "
                       "byte(s) left in the stream (corrupt or truncated trace)\n"),
            std::string::npos)
      << r.err;
}

TEST(ApitraceCli, CorruptTraceIsAnErrorWithItsOffsetAfterTheCallsBeforeIt) {
  const std::filesystem::path dir = fixture("apitrace/synthetic_writer");
  std::string stream = read_file(dir / "synthetic_writer.stream.bin");
  const std::string cut_at = "synthNoArgs";           // first defined at call 16's enter
  const std::size_t enter = stream.find(cut_at) - 4;  // event, thread, id, name length
  ASSERT_EQ(stream.substr(enter, 2), std::string(2, '\0'));
  stream[enter] = '\x42';
  const ScratchDir work;
  const auto path = work / "bad.trace";
  write_file(path, snappy_container(stream));
  const auto r = run_command(rtrace_bin() + " apitrace dump --color=never " + quote(path));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: " + path.string() + ":" + std::to_string(enter) +
                       ": unknown event 0x42 (expected 0x00 enter or 0x01 leave)\n");
  const std::string expected = read_file(dir / "dump.txt");
  EXPECT_EQ(r.out, expected.substr(0, expected.find("16 synthNoArgs")));
}

TEST(ApitraceCli, OptionsAndHelp) {
  auto r = run_command(rtrace_bin() + " apitrace dump --help");
  EXPECT_EQ(r.status, 0);
  for (const char* option : {"--color", "--verbose", "--thread-ids", "--call-nos", "--arg-names",
                             "--multiline", "--calls", "--grep", "--blobs"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
  const auto trace = quote(fixture("apitrace/egl_gles2/egl_gles2.trace"));
  r = run_command(rtrace_bin() + " apitrace dump --color=sometimes " + trace);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("expected auto, always or never"), std::string::npos) << r.err;
  r = run_command(rtrace_bin() + " apitrace dump --calls=x-y " + trace);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "rtrace: cannot read the call set 'x-y': 'x' is not a kind of call (frame, draw, "
            "render, fbo, rendertarget)\n");
  r = run_command(rtrace_bin() +
                  " apitrace dump --color=never --calls=44,45- --call-nos=no "
                  "--arg-names=no " +
                  trace);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n', r.out.find("eglSwapBuffers")) + 2),
            "// process.commandLine = \"\"\n// process.name = \"/tmp/ref/progs/egl_gles2\"\n"
            "eglSwapBuffers(0x55fc3f219f80, 0x55fc3f2a8640) = EGL_TRUE\n\n");
  // Options without their value mean always / yes, as apitrace's getopt optional arguments.
  r = run_command(rtrace_bin() + " apitrace dump --color --thread-ids " + trace + " | head -3");
  EXPECT_EQ(r.out,
            "// process.commandLine = \33[34m\"\"\33[0m\n"
            "// process.name = \33[34m\"/tmp/ref/progs/egl_gles2\"\33[0m\n"
            "0 @0 \33[1meglGetDisplay\33[0m(display_id\33[0m = \33[34mNULL\33[0m) = "
            "\33[32m0x55fc3f219f80\33[0m\n");
  // Standard input; a pipe has no container size.
  r = run_command("cat " + trace + " | " + rtrace_bin() + " apitrace info -");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"ActualDataSize\": 111183,\n  \"ContainerSize\": 0\n"), std::string::npos)
      << r.out;
  r = run_command(rtrace_bin() + " apitrace dump /nonexistent/x.trace");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: /nonexistent/x.trace: No such file or directory\n");
}

}  // namespace
}  // namespace rtrace::apitrace::test
