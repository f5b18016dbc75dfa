#include "formats/apitrace/gl_object_calls.h"

#include <algorithm>
#include <array>

namespace rtrace::apitrace {
namespace {

using enum ObjectKind;
using enum ObjectSource;

constexpr std::array<ObjectKindInfo, kObjectKinds> kKinds = {{
    {"texture", "GL texture object", true},
    {"buffer", "GL buffer object", true},
    {"vertex array", "GL vertex array object", true},
    {"framebuffer", "GL framebuffer object", true},
    {"renderbuffer", "GL renderbuffer object", true},
    {"shader", "GL shader object", true},
    {"program", "GL program object", true},
    {"query", "GL query object", true},
    {"sampler", "GL sampler object", true},
    {"sync", "GL or EGL sync object (handle)", false},
    {"display list", "GL display list", true},
    {"context", "EGL or GLX rendering context (handle)", false},
    {"surface", "EGL surface or GLX drawable (handle)", false},
    {"image", "EGL image (handle)", false},
}};

struct Entry {
  std::string_view function;
  ObjectCall call;
};

constexpr ObjectCall creates(ObjectKind kind, ObjectSource source = LastArgument) {
  return {kind, true, source, ContextEffect::None};
}
constexpr ObjectCall deletes(ObjectKind kind, ObjectSource source = LastArgument) {
  return {kind, false, source, ContextEffect::None};
}
constexpr ObjectCall context(bool create, ContextEffect effect) {
  return {Context, create, create ? ReturnValue : LastArgument, effect};
}

// Sorted by function name (find_object_call searches it by halves).
constexpr auto kCalls = std::to_array<Entry>({
    {"eglCreateContext", context(true, ContextEffect::Create)},
    {"eglCreateImage", creates(Image, ReturnValue)},
    {"eglCreatePbufferFromClientBuffer", creates(Surface, ReturnValue)},
    {"eglCreatePbufferSurface", creates(Surface, ReturnValue)},
    {"eglCreatePixmapSurface", creates(Surface, ReturnValue)},
    {"eglCreatePlatformPixmapSurface", creates(Surface, ReturnValue)},
    {"eglCreatePlatformWindowSurface", creates(Surface, ReturnValue)},
    {"eglCreateSync", creates(Sync, ReturnValue)},
    {"eglCreateWindowSurface", creates(Surface, ReturnValue)},
    {"eglDestroyContext", context(false, ContextEffect::Destroy)},
    {"eglDestroyImage", deletes(Image)},
    {"eglDestroySurface", deletes(Surface)},
    {"eglDestroySync", deletes(Sync)},
    {"eglMakeCurrent", {Context, false, LastArgument, ContextEffect::MakeCurrent}},
    {"glCreateBuffers", creates(Buffer)},
    {"glCreateFramebuffers", creates(Framebuffer)},
    {"glCreateProgram", creates(Program, ReturnValue)},
    {"glCreateProgramObjectARB", creates(Program, ReturnValue)},
    {"glCreateQueries", creates(Query)},
    {"glCreateRenderbuffers", creates(Renderbuffer)},
    {"glCreateSamplers", creates(Sampler)},
    {"glCreateShader", creates(Shader, ReturnValue)},
    {"glCreateShaderObjectARB", creates(Shader, ReturnValue)},
    {"glCreateShaderProgramv", creates(Program, ReturnValue)},
    {"glCreateTextures", creates(Texture)},
    {"glCreateVertexArrays", creates(VertexArray)},
    {"glDeleteBuffers", deletes(Buffer)},
    {"glDeleteFramebuffers", deletes(Framebuffer)},
    {"glDeleteLists", deletes(DisplayList, ListRange)},
    {"glDeleteProgram", deletes(Program)},
    {"glDeleteQueries", deletes(Query)},
    {"glDeleteRenderbuffers", deletes(Renderbuffer)},
    {"glDeleteSamplers", deletes(Sampler)},
    {"glDeleteShader", deletes(Shader)},
    {"glDeleteSync", deletes(Sync)},
    {"glDeleteTextures", deletes(Texture)},
    {"glDeleteVertexArrays", deletes(VertexArray)},
    {"glFenceSync", creates(Sync, ReturnValue)},
    {"glGenBuffers", creates(Buffer)},
    {"glGenFramebuffers", creates(Framebuffer)},
    {"glGenLists", creates(DisplayList, ListRange)},
    {"glGenQueries", creates(Query)},
    {"glGenRenderbuffers", creates(Renderbuffer)},
    {"glGenSamplers", creates(Sampler)},
    {"glGenTextures", creates(Texture)},
    {"glGenVertexArrays", creates(VertexArray)},
    {"glXCreateContext", context(true, ContextEffect::Create)},
    {"glXCreateContextAttribsARB", context(true, ContextEffect::Create)},
    {"glXCreateGLXPixmap", creates(Surface, ReturnValue)},
    {"glXCreateNewContext", context(true, ContextEffect::Create)},
    {"glXCreatePbuffer", creates(Surface, ReturnValue)},
    {"glXCreatePixmap", creates(Surface, ReturnValue)},
    {"glXCreateWindow", creates(Surface, ReturnValue)},
    {"glXDestroyContext", context(false, ContextEffect::Destroy)},
    {"glXDestroyGLXPixmap", deletes(Surface)},
    {"glXDestroyPbuffer", deletes(Surface)},
    {"glXDestroyPixmap", deletes(Surface)},
    {"glXDestroyWindow", deletes(Surface)},
    {"glXMakeContextCurrent", {Context, false, LastArgument, ContextEffect::MakeCurrent}},
    {"glXMakeCurrent", {Context, false, LastArgument, ContextEffect::MakeCurrent}},
});

constexpr std::array<std::string_view, 6> kVendorSuffixes = {"ARB", "EXT",   "OES",
                                                             "KHR", "APPLE", "NV"};

const Entry* lookup(std::string_view function) {
  const auto* it = std::lower_bound(
      kCalls.begin(), kCalls.end(), function,
      [](const Entry& entry, std::string_view name) { return entry.function < name; });
  return it != kCalls.end() && it->function == function ? &*it : nullptr;
}

}  // namespace

const ObjectKindInfo& object_kind_info(ObjectKind kind) {
  return kKinds.at(static_cast<std::size_t>(kind));
}

std::optional<ObjectCall> find_object_call(std::string_view function) {
  if (const Entry* entry = lookup(function)) {
    return entry->call;
  }
  for (std::string_view suffix : kVendorSuffixes) {
    if (function.ends_with(suffix)) {
      if (const Entry* entry = lookup(function.substr(0, function.size() - suffix.size()))) {
        return entry->call;
      }
    }
  }
  return std::nullopt;
}

}  // namespace rtrace::apitrace
