// The object-lifetime view of apitrace traces: calls that create and delete GL, EGL and GLX
// objects become allocations and frees. On traces the test encoder writes (per-context names,
// shared contexts, glGenLists ranges, deletes of unknown names, a context destroyed with live
// objects, several threads), read through the format table as `rtrace process` reads them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "formats/apitrace/gl_object_calls.h"
#include "formats/format_registry.h"
#include "io/byte_source.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "support/test_paths.h"
#include "trace_encoder.h"

namespace rtrace::apitrace::test {
namespace {

// Functions as apitrace's wrappers declare them (ids are arbitrary but fixed per function).
const FunctionDef kGenTextures{1, "glGenTextures", {"n", "textures"}};
const FunctionDef kDeleteTextures{2, "glDeleteTextures", {"n", "textures"}};
const FunctionDef kCreateContext{
    3, "eglCreateContext", {"dpy", "config", "share_context", "attrib_list"}};
const FunctionDef kMakeCurrent{4, "eglMakeCurrent", {"dpy", "draw", "read", "ctx"}};
const FunctionDef kDestroyContext{5, "eglDestroyContext", {"dpy", "ctx"}};
const FunctionDef kGenLists{6, "glGenLists", {"range"}};
const FunctionDef kDeleteLists{7, "glDeleteLists", {"list", "range"}};
const FunctionDef kCreateShader{8, "glCreateShader", {"type"}};
const FunctionDef kGenBuffersArb{9, "glGenBuffersARB", {"n", "buffers"}};
const FunctionDef kClear{10, "glClear", {"mask"}};

constexpr std::uint64_t kDisplay = 0x1000;

// Writes calls the way apitrace's wrappers do: inputs on enter, outputs and return on leave.
class Calls {
 public:
  Calls() : trace_(6, {{"process.name", "/usr/bin/app"}}) {}

  void gen(const FunctionDef& f, const std::vector<std::uint64_t>& names, std::uint64_t thread = 0,
           const std::vector<FrameDef>& backtrace = {}) {
    const std::uint64_t n = trace_.enter(f, thread);
    if (!backtrace.empty()) {
      trace_.backtrace(backtrace);
    }
    trace_.arg(0), trace_.sint(static_cast<std::int64_t>(names.size())), trace_.end();
    trace_.leave(n);
    trace_.arg(1), array(names), trace_.end();
  }
  void del(const FunctionDef& f, const std::vector<std::uint64_t>& names,
           std::uint64_t thread = 0) {
    const std::uint64_t n = trace_.enter(f, thread);
    trace_.arg(0), trace_.sint(static_cast<std::int64_t>(names.size()));
    trace_.arg(1), array(names), trace_.end();
    trace_.leave(n), trace_.end();
  }
  void create_context(std::uint64_t context, std::uint64_t share, std::uint64_t thread = 0) {
    const std::uint64_t n = trace_.enter(kCreateContext, thread);
    trace_.arg(0), trace_.pointer(kDisplay), trace_.arg(1), trace_.pointer(0x2000);
    trace_.arg(2), trace_.pointer(share), trace_.arg(3), trace_.null(), trace_.end();
    trace_.leave(n), trace_.ret(), trace_.pointer(context), trace_.end();
  }
  void make_current(std::uint64_t context, std::uint64_t thread = 0) {
    const std::uint64_t n = trace_.enter(kMakeCurrent, thread);
    trace_.arg(0), trace_.pointer(kDisplay), trace_.arg(1), trace_.pointer(0);
    trace_.arg(2), trace_.pointer(0), trace_.arg(3), trace_.pointer(context), trace_.end();
    trace_.leave(n), trace_.ret(), trace_.uint_value(1), trace_.end();
  }
  void destroy_context(std::uint64_t context) {
    const std::uint64_t n = trace_.enter(kDestroyContext);
    trace_.arg(0), trace_.pointer(kDisplay), trace_.arg(1), trace_.pointer(context), trace_.end();
    trace_.leave(n), trace_.ret(), trace_.uint_value(1), trace_.end();
  }
  void gen_lists(std::uint64_t range, std::uint64_t first) {
    const std::uint64_t n = trace_.enter(kGenLists);
    trace_.arg(0), trace_.sint(static_cast<std::int64_t>(range)), trace_.end();
    trace_.leave(n), trace_.ret(), trace_.uint_value(first), trace_.end();
  }
  void delete_lists(std::uint64_t first, std::uint64_t range) {
    const std::uint64_t n = trace_.enter(kDeleteLists);
    trace_.arg(0), trace_.uint_value(first);
    trace_.arg(1), trace_.sint(static_cast<std::int64_t>(range)), trace_.end();
    trace_.leave(n), trace_.end();
  }
  void create_shader(std::uint64_t shader) {
    const std::uint64_t n = trace_.enter(kCreateShader);
    trace_.arg(0), trace_.uint_value(0x8B31), trace_.end();
    trace_.leave(n), trace_.ret(), trace_.uint_value(shader), trace_.end();
  }
  void clear() {
    const std::uint64_t n = trace_.enter(kClear);
    trace_.arg(0), trace_.uint_value(0x4000), trace_.end();
    trace_.leave(n), trace_.end();
  }
  std::string file() const { return snappy_container(trace_.stream()); }

 private:
  void array(const std::vector<std::uint64_t>& names) {
    trace_.array(names.size());
    for (std::uint64_t name : names) {
      trace_.uint_value(name);
    }
  }
  TraceEncoder trace_;
};

// What the model receives: one line per allocation or free, "index alloc|free type 0xid".
class ObjectEvents final : public TraceSink {
 public:
  void resource_type(const ResourceType& type) override { types_.push_back(type.type); }
  void call(const CallRecord& record) override {
    const rtrace::Call& c = record.call;
    if (c.kind == CallKind::Alloc || c.kind == CallKind::Free) {
      lines_.push_back(fmt::format("{} {} {} {} 0x{:x}", c.index, record.function,
                                   c.kind == CallKind::Alloc ? "alloc" : "free",
                                   types_.at(c.resource_type - 1), c.resource_id));
    }
  }
  void finish() override { ++finishes_; }
  std::string text() const { return fmt::format("{}\n", fmt::join(lines_, "\n")); }
  int finishes() const { return finishes_; }

 private:
  std::vector<std::string> types_;
  std::vector<std::string> lines_;
  int finishes_ = 0;
};

std::string object_events(const std::string& file) {
  InputStream input(std::make_unique<MemorySource>(file), "app.trace");
  CollectingDiagnostics diagnostics;
  ObjectEvents sink;
  const TraceFormatInfo& format = read_trace(input, sink, diagnostics);
  EXPECT_EQ(format.name, "apitrace");
  EXPECT_EQ(diagnostics.text(), "");
  EXPECT_EQ(sink.finishes(), 1);
  return sink.text();
}

TEST(ApitraceObjects, GlNamesArePerShareGroup) {
  Calls calls;
  calls.create_context(0xc1, 0);     // 0: group 1
  calls.create_context(0xc2, 0);     // 1: group 2
  calls.create_context(0xc3, 0xc1);  // 2: shares group 1
  calls.make_current(0xc1);          // 3
  calls.gen(kGenTextures, {1, 2});   // 4
  calls.make_current(0xc2);          // 5
  calls.gen(kGenTextures, {1});      // 6: texture 1 of group 2, not of group 1
  calls.make_current(0xc3);          // 7
  calls.del(kDeleteTextures, {2});   // 8: group 1's texture 2, through the sharing context
  calls.clear();                     // 9: no objects
  EXPECT_EQ(object_events(calls.file()),
            "0 eglCreateContext alloc context 0xc1\n"
            "1 eglCreateContext alloc context 0xc2\n"
            "2 eglCreateContext alloc context 0xc3\n"
            "4 glGenTextures alloc texture 0x100000001\n"
            "4 glGenTextures alloc texture 0x100000002\n"
            "6 glGenTextures alloc texture 0x200000001\n"
            "8 glDeleteTextures free texture 0x100000002\n");
}

TEST(ApitraceObjects, EachThreadFollowsItsOwnCurrentContext) {
  Calls calls;
  calls.create_context(0xc1, 0, 0);  // 0
  calls.create_context(0xc2, 0, 1);  // 1
  calls.make_current(0xc1, 0);       // 2
  calls.make_current(0xc2, 1);       // 3
  calls.gen(kGenTextures, {5}, 0);   // 4: group 1
  calls.gen(kGenTextures, {5}, 1);   // 5: group 2
  calls.make_current(0, 1);          // 6: thread 1 releases its context
  calls.gen(kGenTextures, {6}, 1);   // 7: no current context: group 0
  EXPECT_EQ(object_events(calls.file()),
            "0 eglCreateContext alloc context 0xc1\n"
            "1 eglCreateContext alloc context 0xc2\n"
            "4 glGenTextures alloc texture 0x100000005\n"
            "5 glGenTextures alloc texture 0x200000005\n"
            "7 glGenTextures alloc texture 0x6\n");
}

// apitrace's thread numbers are 64-bit varints. Threads 0 and 2^32 share their low 32 bits (and
// became one thread when the model's thread id had 32 bits: the second make_current then
// replaced the first thread's context).
TEST(ApitraceObjects, ThreadNumbersBeyond32BitsStayApart) {
  constexpr std::uint64_t kHighThread = std::uint64_t{1} << 32;
  Calls calls;
  calls.create_context(0xc1, 0, 0);            // 0
  calls.create_context(0xc2, 0, kHighThread);  // 1
  calls.make_current(0xc1, 0);                 // 2
  calls.make_current(0xc2, kHighThread);       // 3
  calls.gen(kGenTextures, {5}, 0);             // 4: group 1 (context 0xc1)
  calls.gen(kGenTextures, {5}, kHighThread);   // 5: group 2 (context 0xc2)
  EXPECT_EQ(object_events(calls.file()),
            "0 eglCreateContext alloc context 0xc1\n"
            "1 eglCreateContext alloc context 0xc2\n"
            "4 glGenTextures alloc texture 0x100000005\n"
            "5 glGenTextures alloc texture 0x200000005\n");
}

TEST(ApitraceObjects, ListRangesReturnValuesSuffixesAndZeroNames) {
  Calls calls;
  calls.create_context(0xc1, 0);       // 0
  calls.make_current(0xc1);            // 1
  calls.gen_lists(3, 10);              // 2: lists 10, 11, 12
  calls.delete_lists(11, 2);           // 3: lists 11, 12
  calls.gen_lists(2, 0);               // 4: failed (returned 0): nothing
  calls.create_shader(7);              // 5
  calls.gen(kGenBuffersArb, {4});      // 6: the ARB name is glGenBuffers
  calls.del(kDeleteTextures, {0, 9});  // 7: 0 is ignored by GL; 9 was never created
  EXPECT_EQ(object_events(calls.file()),
            "0 eglCreateContext alloc context 0xc1\n"
            "2 glGenLists alloc display list 0x10000000a\n"
            "2 glGenLists alloc display list 0x10000000b\n"
            "2 glGenLists alloc display list 0x10000000c\n"
            "3 glDeleteLists free display list 0x10000000b\n"
            "3 glDeleteLists free display list 0x10000000c\n"
            "5 glCreateShader alloc shader 0x100000007\n"
            "6 glGenBuffersARB alloc buffer 0x100000004\n"
            "7 glDeleteTextures free texture 0x100000009\n");
}

TEST(ApitraceObjects, ContextHandleReusedAfterDestroyIsANewShareGroup) {
  Calls calls;
  calls.create_context(0xc1, 0);    // 0: group 1
  calls.make_current(0xc1);         // 1
  calls.gen(kGenTextures, {1});     // 2
  calls.make_current(0);            // 3
  calls.destroy_context(0xc1);      // 4: texture 1 of group 1 stays live
  calls.create_context(0xc1, 0);    // 5: same handle, group 2
  calls.make_current(0xc1);         // 6
  calls.del(kDeleteTextures, {1});  // 7: group 2's texture 1, which was never created
  EXPECT_EQ(object_events(calls.file()),
            "0 eglCreateContext alloc context 0xc1\n"
            "2 glGenTextures alloc texture 0x100000001\n"
            "4 eglDestroyContext free context 0xc1\n"
            "5 eglCreateContext alloc context 0xc1\n"
            "7 glDeleteTextures free texture 0x200000001\n");
}

TEST(ApitraceObjects, EveryKindHasAResourceType) {
  std::vector<std::string> types;
  for (std::size_t kind = 0; kind < kObjectKinds; ++kind) {
    types.emplace_back(object_kind_info(static_cast<ObjectKind>(kind)).type);
  }
  EXPECT_EQ(fmt::format("{}", fmt::join(types, ",")),
            "texture,buffer,vertex array,framebuffer,renderbuffer,shader,program,query,sampler,"
            "sync,display list,context,surface,image");
  EXPECT_FALSE(find_object_call("glClear").has_value());
  EXPECT_FALSE(find_object_call("glGenTexturesXYZ").has_value());
  ASSERT_TRUE(find_object_call("glGenFramebuffersEXT").has_value());
  EXPECT_EQ(find_object_call("glGenFramebuffersEXT")->kind, ObjectKind::Framebuffer);
}

}  // namespace
}  // namespace rtrace::apitrace::test

namespace rtrace::apitrace::test {
namespace {

std::string fixture_events(const std::string& name) {
  return object_events(
      rtrace::test::read_file(rtrace::test::fixture("apitrace/" + name + "/" + name + ".trace")));
}

// src/egl_gles2.c: a pbuffer surface and a context, two textures generated and deleted, two
// shaders and a program created and deleted, then the context and the surface destroyed: every
// object is released, nothing leaks.
TEST(ApitraceObjectsFixtures, EglGles2CreatesAndDeletesEverything) {
  RTRACE_NEEDS_FIXTURES();
  EXPECT_EQ(fixture_events("egl_gles2"),
            "8 eglCreatePbufferSurface alloc surface 0x55fc3f2a8640\n"
            "9 eglCreateContext alloc context 0x55fc3f2915e0\n"
            "16 glGenTextures alloc texture 0x100000001\n"
            "16 glGenTextures alloc texture 0x100000002\n"
            "21 glDeleteTextures free texture 0x100000001\n"
            "21 glDeleteTextures free texture 0x100000002\n"
            "22 glCreateShader alloc shader 0x100000001\n"
            "25 glCreateShader alloc shader 0x100000002\n"
            "28 glCreateProgram alloc program 0x100000003\n"
            "45 glDeleteProgram free program 0x100000003\n"
            "46 glDeleteShader free shader 0x100000001\n"
            "47 glDeleteShader free shader 0x100000002\n"
            "49 eglDestroyContext free context 0x55fc3f2915e0\n"
            "50 eglDestroySurface free surface 0x55fc3f2a8640\n");
}

// src/glx_calls.c: three textures (deleted one, then two), two shaders, a program, a buffer and a
// fence sync, each deleted, and the context destroyed: nothing leaks. (The window is an X
// window, not a GLX drawable: no surface.)
TEST(ApitraceObjectsFixtures, GlxCallsCreatesAndDeletesEverything) {
  RTRACE_NEEDS_FIXTURES();
  EXPECT_EQ(fixture_events("glx_calls"),
            "2 glXCreateContext alloc context 0x5557f5484560\n"
            "33 glGenTextures alloc texture 0x100000001\n"
            "33 glGenTextures alloc texture 0x100000002\n"
            "33 glGenTextures alloc texture 0x100000003\n"
            "50 glDeleteTextures free texture 0x100000001\n"
            "51 glDeleteTextures free texture 0x100000002\n"
            "51 glDeleteTextures free texture 0x100000003\n"
            "53 glCreateShader alloc shader 0x100000001\n"
            "58 glCreateShader alloc shader 0x100000002\n"
            "62 glCreateProgram alloc program 0x100000003\n"
            "70 glDeleteShader free shader 0x100000001\n"
            "71 glDeleteShader free shader 0x100000002\n"
            "83 glGenBuffers alloc buffer 0x100000001\n"
            "97 glDeleteBuffers free buffer 0x100000001\n"
            "115 glFenceSync alloc sync 0x5557f62ccac0\n"
            "118 glDeleteSync free sync 0x5557f62ccac0\n"
            "127 glDeleteProgram free program 0x100000003\n"
            "129 glXDestroyContext free context 0x5557f5484560\n");
}

}  // namespace
}  // namespace rtrace::apitrace::test

namespace rtrace::apitrace::test {
namespace {

// The call lines (`N. name...`) of the text protocol.
std::vector<std::string> call_lines(const std::string& text) {
  std::vector<std::string> calls;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    const std::size_t dot = line.find(". ");
    if (dot != std::string::npos && dot > 0 && line.find_first_not_of("0123456789") == dot) {
      calls.push_back(line);
    }
    at = end + 1;
  }
  return calls;
}

// -l on the fixtures: both programs delete every object they make, so nothing is left of their
// hundreds of calls but the per-type summaries.
TEST(ApitraceObjectsCli, LeaksOfFixturesThatDeleteEverythingAreEmpty) {
  const std::string rtrace = (rtrace::test::build_dir() / "bin" / "rtrace").string();
  for (const char* name : {"egl_gles2", "glx_calls"}) {
    const auto trace =
        rtrace::test::fixture(std::string("apitrace/") + name + "/" + name + ".trace");
    const auto all = rtrace::test::run_command(rtrace + " process -i '" + trace.string() + "'");
    ASSERT_EQ(all.status, 0) << all.err;
    EXPECT_GT(call_lines(all.out).size(), 50U) << name;
    const auto leaks =
        rtrace::test::run_command(rtrace + " process -l -i '" + trace.string() + "'");
    ASSERT_EQ(leaks.status, 0) << leaks.err;
    EXPECT_EQ(call_lines(leaks.out), std::vector<std::string>{}) << name;
    EXPECT_NE(leaks.out.find("# Resource - texture (GL texture object):\n"
                             "# 0 block(s) leaked with total size of 0 bytes\n"),
              std::string::npos)
        << leaks.out;
  }
}

// `rtrace process -l` and `rtrace report` as a user runs them on an application's trace: a
// texture made with a backtrace and never deleted, its context destroyed while it was alive.
TEST(ApitraceObjectsCli, LeaksListTheObjectsNeverDeletedWithTheirCreatingCall) {
  Calls calls;
  calls.create_context(0xc1, 0);  // 0
  calls.make_current(0xc1);       // 1
  const FrameDef load{1, "/usr/bin/app", "load_scene(int)", "scene.c", 42, 0x1234};
  const FrameDef main_frame{2, "/usr/bin/app", "main", "main.c", 7, 0x99};
  calls.gen(kGenTextures, {1, 2}, 0, {load, main_frame});  // 2
  calls.del(kDeleteTextures, {2});                         // 3
  calls.make_current(0);                                   // 4
  calls.destroy_context(0xc1);                             // 5
  rtrace::test::ScratchDir scratch;
  const auto trace = scratch / "app.trace";
  rtrace::test::write_file(trace, calls.file());
  const std::string rtrace = (rtrace::test::build_dir() / "bin" / "rtrace").string();

  const auto leaks = rtrace::test::run_command(rtrace + " process -l -i '" + trace.string() + "'");
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  EXPECT_EQ(leaks.err, "");
  // The leaked texture 1 of share group 1, with the call that created it and its backtrace.
  EXPECT_NE(leaks.out.find("2. glGenTextures<texture>(1) = 0x100000001\n"
                           "\t$n = 2\n"
                           "\t$textures = {1, 2}\n"
                           "\t0x0 load_scene(int) at scene.c:42\n"
                           "\t0x0 main at main.c:7\n"),
            std::string::npos)
      << leaks.out;
  EXPECT_EQ(leaks.out.find("0x100000002"), std::string::npos) << leaks.out;  // deleted
  EXPECT_NE(leaks.out.find("# Resource - texture (GL texture object):\n"
                           "# 1 block(s) leaked with total size of 1 bytes\n"),
            std::string::npos)
      << leaks.out;
  EXPECT_NE(leaks.out.find("# Resource - context (EGL or GLX rendering context (handle)):\n"
                           "# 0 block(s) leaked"),
            std::string::npos)
      << leaks.out;

  // Only the leak: the calls that hold no object (eglMakeCurrent, ...) and the created and
  // deleted texture 2 are gone.
  EXPECT_EQ(call_lines(leaks.out), std::vector<std::string>{"2. glGenTextures<texture>(1) = "
                                                            "0x100000001"})
      << leaks.out;

  const auto report = rtrace::test::run_command(rtrace + " report -i '" + trace.string() + "'");
  ASSERT_EQ(report.status, 0) << report.err;
  // GL objects have size 1: the report counts them ("GL texture object": objects).
  EXPECT_NE(report.out.find("texture: 2 object(s) alive after call 2"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("2 allocations, 1 releases"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace rtrace::apitrace::test
