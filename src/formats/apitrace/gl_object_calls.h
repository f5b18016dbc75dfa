// Which GL, EGL and GLX calls create and delete objects, and where in the call the objects are.
//
// The object-lifetime stage (object_lifetime_stage.h) looks calls up here by function name. The
// table knows the core names; a name with a vendor suffix (ARB, EXT, OES, KHR, APPLE, NV) that is
// not in the table is looked up without it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rtrace::apitrace {

// The kinds of object, in the order of their resource type ids (1, 2, ...).
enum class ObjectKind : std::uint8_t {
  Texture,
  Buffer,
  VertexArray,
  Framebuffer,
  Renderbuffer,
  Shader,
  Program,
  Query,
  Sampler,
  Sync,
  DisplayList,
  Context,
  Surface,
  Image,
};
inline constexpr std::size_t kObjectKinds = 14;

struct ObjectKindInfo {
  std::string_view type;         // the resource type's name: "texture", "display list"
  std::string_view description;  // "GL texture object"
  // GL names are per context (share group); EGL and GLX handles and sync pointers are global.
  bool per_context = true;
};

const ObjectKindInfo& object_kind_info(ObjectKind kind);

// Where a call's objects are.
enum class ObjectSource : std::uint8_t {
  LastArgument,  // an array (or one value) in the last argument: glGen*, glDelete*, eglDestroy*
  ReturnValue,   // the return value: glCreateShader, eglCreate*, glFenceSync
  ListRange,     // display lists first..first+range-1 (glGenLists' return, glDeleteLists' args)
};

// What a call does to the current context of its thread, besides creating or deleting objects.
enum class ContextEffect : std::uint8_t { None, Create, Destroy, MakeCurrent };

struct ObjectCall {
  ObjectKind kind = ObjectKind::Texture;
  bool creates = true;  // false: deletes
  ObjectSource source = ObjectSource::LastArgument;
  ContextEffect context = ContextEffect::None;
};

// What `function` does to objects, or nothing (MakeCurrent calls come with kind Context and
// `creates` unused).
std::optional<ObjectCall> find_object_call(std::string_view function);

}  // namespace rtrace::apitrace
