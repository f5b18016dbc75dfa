// Traces in every version apitrace ever wrote (0 to 6) and in every container, written by our
// test encoder, read back into the dump text apitrace would print.
#include <gtest/gtest.h>

#include <filesystem>
#include <span>
#include <string>

#include "apitrace_test_support.h"
#include "formats/apitrace/container.h"
#include "formats/apitrace/stream_sniffer.h"
#include "support/test_paths.h"
#include "trace_encoder.h"

namespace rtrace::apitrace::test {
namespace {

const FunctionDef kGenTextures{4, "glGenTextures", {"n", "textures"}};
const FunctionDef kUpload{
    9, "upload", {"target", "pixels", "flags", "scale", "ratio", "name", "ptr", "neg", "info"}};
const FunctionDef kTraced{12, "traced", {}};
const FunctionDef kSwap{2000, "glXSwapBuffers", {"dpy", "drawable"}};
const FunctionDef kWide{100000, "wide", {"w"}};
const FunctionDef kPending{13, "pending", {"x"}};
const FunctionDef kGetString{14, "glGetString", {"name"}};
const EnumDef kTarget{1, {{"GL_TEXTURE_2D", 0x0de1}}};
const EnumDef kStringName{2, {{"GL_VENDOR", 0x1f00}}};
const EnumDef kNegative{3, {{"NEG", -3}}};
const BitmaskDef kFlags{0, {{"A", 1}, {"B", 2}, {"C", 4}}};
const StructDef kInfo{0, "Info", {"x", "y"}};
const FrameDef kFrame{0, "libgl.so", "draw()", "draw.c", 7, 0x10};

// The same program in any version: what each version can express.
std::string sample_stream(unsigned version) {
  TraceEncoder t(version, {{"process.name", "sample"}, {"process.commandLine", "-x"}});
  const auto gen = t.enter(kGenTextures);
  t.arg(0), t.uint_value(2), t.end();
  const auto upload = t.enter(kUpload, 1);  // another thread, while glGenTextures is in flight
  t.arg(0), t.enumeration(kTarget, 0x0de1);
  t.arg(1), t.blob("abc");
  t.arg(2), t.bitmask(kFlags, 3);
  t.arg(3), t.real32(0.5F);
  t.arg(4), t.real64(0.25);
  t.arg(5), t.string("a\"b\nc");
  t.arg(6), t.pointer(0x1000);
  t.arg(7), t.sint(-5);
  t.arg(8), t.structure(kInfo), t.uint_value(1), t.boolean(true);
  t.end();
  t.leave(upload), t.end();
  t.leave(gen), t.arg(1), t.array(2), t.uint_value(1), t.uint_value(2), t.end();
  if (version >= 5) {
    const auto traced = t.enter(kTraced);
    t.backtrace({kFrame}), t.end();
    t.leave(traced), t.end();
  }
  const auto get = t.enter(kGetString);
  t.arg(0), t.enumeration(kStringName, 0x1f00), t.end();
  t.leave(get), t.ret(), t.string("Mesa"), t.end();
  if (version >= 6) {
    const auto wide = t.enter(kWide);
    t.arg(0), t.wstring({'h', 0xe9}), t.end();
    t.leave(wide), t.ret(), t.repr(), t.enumeration(kNegative, -3), t.sint(-3), t.end();
  }
  const auto swap = t.enter(kSwap);
  t.arg(0), t.pointer(0x10), t.arg(1), t.uint_value(5), t.end();
  t.leave(swap), t.end();
  t.enter(kPending, 2);
  t.arg(0), t.uint_value(1), t.end();
  return t.stream();
}

std::string expected_dump(unsigned version) {
  std::string text;
  if (version >= 6) {
    // Sorted by name, as apitrace prints them.
    text += "// process.commandLine = \"-x\"\n// process.name = \"sample\"\n";
  }
  text +=
      "1 @1 upload(target = GL_TEXTURE_2D, pixels = blob(3), flags = A | B, scale = 0.5, "
      "ratio = 0.25, name = \"a\\\"b\nc\", ptr = 0x1000, neg = -5, info = {x = 1, y = true})\n"
      "0 @0 glGenTextures(n = 2, textures = {1, 2})\n";
  std::uint64_t next = 2;
  if (version >= 5) {
    text += "2 @0 traced()\nBacktrace:\nlibgl.so: draw()+0x10: draw.c:7\n";
    ++next;
  }
  text += std::to_string(next++) + " @0 glGetString(name = GL_VENDOR) = \"Mesa\"\n";
  if (version >= 6) {
    text += std::to_string(next++) + " @0 wide(w = L\"h\\551\") = NEG\n";
  }
  text += std::to_string(next++) + " @0 glXSwapBuffers(dpy = 0x10, drawable = 5)\n\n";
  text += std::to_string(next) + " @2 pending(x = 1) // incomplete\n";
  return text;
}

DumpOptions verbose_with_threads() {
  DumpOptions options;
  options.thread_ids = true;
  return options;
}

class EveryVersion : public ::testing::TestWithParam<unsigned> {};

TEST_P(EveryVersion, ReadsBackWhatTheVersionExpresses) {
  const unsigned version = GetParam();
  const DumpResult r = dump_bytes(snappy_container(sample_stream(version)), verbose_with_threads());
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.warnings, "");
  EXPECT_EQ(r.text, expected_dump(version));
}

TEST_P(EveryVersion, EveryContainerGivesTheSameCalls) {
  const unsigned version = GetParam();
  const std::string stream = sample_stream(version);
  // The last: the call stream with no container at all (what gzip and zstd hold).
  for (const std::string& file : {gzip_container(stream), zstd_container(stream),
                                  brotli_container(stream), snappy_container(stream, 7), stream}) {
    const DumpResult r = dump_bytes(file, verbose_with_threads());
    EXPECT_EQ(r.error, "");
    EXPECT_EQ(r.warnings, "");
    EXPECT_EQ(r.text, expected_dump(version));
  }
}

// What tells a call stream without a container from Brotli data and from other formats.
TEST_P(EveryVersion, CallStreamsAreRecognisedByContent) {
  const std::string stream = sample_stream(GetParam());
  const auto bytes = [](const std::string& text) {
    return std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  };
  for (std::size_t head : {std::size_t{16}, std::size_t{64}, stream.size()}) {
    EXPECT_TRUE(looks_like_call_stream(bytes(stream.substr(0, head)))) << head;
  }
  EXPECT_TRUE(looks_like_brotli_call_stream(bytes(brotli_container(stream))));
  EXPECT_FALSE(looks_like_call_stream(bytes(brotli_container(stream))));
  EXPECT_FALSE(looks_like_brotli_call_stream(bytes(stream)));
  EXPECT_FALSE(looks_like_brotli_call_stream(bytes(brotli_container("hello, world"))));
}

INSTANTIATE_TEST_SUITE_P(Apitrace, EveryVersion, ::testing::Range(0U, 7U));

TEST(ApitraceVersions, OtherFormatsAreNotCallStreams) {
  const auto bytes = [](const std::string& text) {
    return std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  };
  std::size_t files = 0;
  for (const char* folder : {"sp-rtrace", "mpatrol", "stacktrack"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(rtrace::test::fixture(folder))) {
      if (entry.is_regular_file()) {
        const std::string head = rtrace::test::read_file(entry.path()).substr(0, 64);
        EXPECT_FALSE(looks_like_call_stream(bytes(head))) << entry.path();
        ++files;
      }
    }
  }
  EXPECT_GT(files, 20U);
  EXPECT_FALSE(looks_like_call_stream(bytes(std::string("\x06\x06\x13process"))));  // too short
  EXPECT_FALSE(looks_like_call_stream(bytes(std::string("\x07\x06\x00\x00\x00\x00"))));
  EXPECT_FALSE(looks_like_call_stream(bytes(std::string("\x05\x01\x00\x00\x04glX\x01"))));
  EXPECT_TRUE(looks_like_call_stream(bytes(std::string("\x06\x06\x00", 3))));  // no calls
}

TEST(ApitraceVersions, RejectsVersionsAfterSix) {
  TraceEncoder t(7);
  const DumpResult r = dump_bytes(snappy_container(t.stream()));
  EXPECT_EQ(r.error,
            "t.trace:0: unsupported apitrace trace version 7 (rtrace reads 0 to 6); not an "
            "apitrace trace?");
}

TEST(ApitraceVersions, SignaturesAreCachedPerKindById) {
  // Function 5 and enum 5 and struct 5 are different things; each definition comes once.
  TraceEncoder t(6);
  const FunctionDef f{5, "f", {"a", "b"}};
  const EnumDef e{5, {{"E_ONE", 1}, {"E_ALSO_ONE", 1}, {"E_TWO", 2}}};
  const StructDef s{5, "S", {"", "z"}};  // anonymous member: flattened
  const StructDef inner{6, "Inner", {"p", "q"}};
  for (int i = 0; i < 2; ++i) {
    const auto n = t.enter(f);
    t.arg(0), t.enumeration(e, i + 1);
    t.arg(1), t.structure(s), t.structure(inner), t.uint_value(1), t.null(), t.array(0);
    t.end(), t.leave(n), t.end();
  }
  const DumpResult r = dump_bytes(snappy_container(t.stream()));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.text,
            "0 f(a = E_ONE, b = {p = 1, q = NULL, z = {}})\n"
            "1 f(a = E_TWO, b = {p = 1, q = NULL, z = {}})\n");
}

}  // namespace
}  // namespace rtrace::apitrace::test
