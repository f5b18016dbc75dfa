// librtrace-gobject.so: traces GObject instances as the original's gobject module did: one
// resource type `gobject` ("GObject instance"), flagged refcount, whose id is the object.
//
//  * g_object_new, g_object_new_valist, g_object_new_with_properties, g_object_newv: an
//    allocation (the object's first reference), size = the type's instance size, argument
//    `type` = the type's name (ARGS, written with `args=1`, rtrace record -a);
//  * g_object_ref, and g_object_ref_sink of an object that holds no floating reference: an
//    allocation of the live id, i.e. one more reference (sinking a floating reference adds none:
//    nothing is recorded);
//  * g_object_unref and g_clear_object: a release, recorded before the real call (the call that
//    drops the last reference finalizes the object, and its memory may be reused at once).
// The post-processor counts the references of a refcount type: an object is released when its
// last reference is, so `-l` lists the objects never finalized, each with the call that created
// it and its backtrace.
//
// The module does not link GLib: a program without it must not load it. The functions are found
// with dlsym when the program first calls one of them (they exist by then); the module itself
// registers at start-up in any case, so that `start=1` never waits for a GLib that never comes.
// The object's type is read from the instance (its class's first member, GLib's stable ABI) and
// named by g_type_query, found the same way.
//
// Limits: GLib calls its own functions directly (not through the PLT), so references that
// libgobject takes and drops inside itself are not seen; only calls made by the program and by
// other libraries are. An object that GLib alone releases (a reference the program handed over
// to GLib's own internals) stays counted as alive.
#include <stdarg.h>

#include "tracer/api/module_sdk.h"

namespace rtrace::tracer {
namespace {

using GType = unsigned long;  // gsize, GLib's GType

// GLib's GTypeQuery.
struct TypeQuery {
  GType type;
  const char* type_name;
  unsigned class_size;
  unsigned instance_size;
};

#define RTRACE_GOBJECT_REAL_FUNCTIONS(FUNCTION, SYMBOL)                         \
  SYMBOL(new_valist, "g_object_new_valist", void*(GType, const char*, va_list)) \
  SYMBOL(new_with_properties, "g_object_new_with_properties",                   \
         void*(GType, unsigned, const char**, const void*))                     \
  SYMBOL(newv, "g_object_newv", void*(GType, unsigned, void*))                  \
  SYMBOL(ref, "g_object_ref", void*(void*))                                     \
  SYMBOL(ref_sink, "g_object_ref_sink", void*(void*))                           \
  SYMBOL(is_floating, "g_object_is_floating", int(void*))                       \
  SYMBOL(clear_object, "g_clear_object", void(void**))                          \
  SYMBOL(type_query, "g_type_query", void(GType, TypeQuery*))                   \
  SYMBOL(unref, "g_object_unref", void(void*))
RTRACE_REAL_FUNCTIONS(RealGObject, RTRACE_GOBJECT_REAL_FUNCTIONS);

// The RESR flag that makes the post-processor count references (binary protocol, RESR).
constexpr std::uint32_t kRefcountFlag = 0x1;

constinit RealGObject g_real_gobject;
constinit std::uint32_t g_gobject_resource = 1;

// Finds what the process has of GLib; every pointer stays null without it.
void find_glib_functions() {
  RealGObject& r = g_real_gobject;
  r.find_all();
}

bool resolve_gobject_functions() {
  find_glib_functions();
  return true;  // complete even without GLib: the wrappers find it when it is there
}

void register_gobject_module() {
  rtrace_register_module("gobject", 1, 0);
  g_gobject_resource = rtrace_register_resource("gobject", "GObject instance", kRefcountFlag);
  rtrace_module_ready();
}

struct GObjectModule;  // the module's tag for ModuleStart
constinit ModuleStart<GObjectModule> g_gobject_start{resolve_gobject_functions,
                                                     register_gobject_module};

// The real functions. A wrapper runs only when GLib is loaded; if it was loaded after the module
// started (dlopen), the table is filled now, once.
RealGObject& glib() {
  if (__builtin_expect(!g_real_gobject.unref.found_acquire(), 0)) {
    GuardScope guard;  // dlsym allocates
    find_glib_functions();
  }
  return g_real_gobject;
}

// True when calls are recorded (the module started, a trace is on, not inside the tracer). The
// module holds no guard of its own around GLib's functions: the objects a constructor or a
// dispose handler of the program creates or releases are the program's doing.
bool recording() {
  return g_gobject_start.ready() && tracing_now<GObjectModule>();
}

// An allocation of `object` (created, or one more reference): size and type name from GLib's
// type system, asked under the tracer guard (the module's own work, nobody's record).
void record_reference(const char* name, void* object, const void* return_address) {
  GuardScope guard;
  TypeQuery query{};
  if (glib().type_query != nullptr) {
    const GType type = **static_cast<GType* const*>(object);  // instance->g_class->g_type
    glib().type_query(type, &query);
  }
  const bool known = query.type != 0;
  // The type name is optional (`args=1`, `-a`): the session writes whatever arguments it is given.
  const RtraceArg args[] = {{"type", known ? query.type_name : "unknown"}};
  const std::uint32_t arg_count = rtrace_wants_args() != 0 ? 1 : 0;
  record_allocation(g_gobject_resource, name, known ? query.instance_size : 1,
                    reinterpret_cast<std::uintptr_t>(object), return_address, args, arg_count);
}

// The release of one reference of `object`, written out before the real call (which may
// finalize the object; its own releases must not find a call of ours still open).
void record_release(const char* name, void* object, const void* return_address) {
  ReleaseRecorder release(g_gobject_resource, name, reinterpret_cast<std::uintptr_t>(object),
                          return_address);
  release.commit();
}

void* record_new(const char* name, void* object, const void* return_address) {
  if (object != nullptr && recording()) {
    record_reference(name, object, return_address);
  }
  return object;
}

}  // namespace
}  // namespace rtrace::tracer

using rtrace::tracer::glib;
using rtrace::tracer::GType;
using rtrace::tracer::record_new;
using rtrace::tracer::record_reference;
using rtrace::tracer::record_release;
using rtrace::tracer::recording;

// The real functions run outside the guard: what they allocate belongs to the memory module's
// trace, and the program's own code they call (constructors, dispose) is the program's doing.
extern "C" {

RTRACE_EXPORT void* g_object_new(GType type, const char* first_property, ...) {
  va_list properties;
  va_start(properties, first_property);
  void* object = glib().new_valist(type, first_property, properties);
  va_end(properties);
  return record_new("g_object_new", object, __builtin_return_address(0));
}

RTRACE_EXPORT void* g_object_new_valist(GType type, const char* first_property,
                                        va_list properties) {
  void* object = glib().new_valist(type, first_property, properties);
  return record_new("g_object_new_valist", object, __builtin_return_address(0));
}

RTRACE_EXPORT void* g_object_new_with_properties(GType type, unsigned count, const char** names,
                                                 const void* values) {
  void* object = glib().new_with_properties(type, count, names, values);
  return record_new("g_object_new_with_properties", object, __builtin_return_address(0));
}

RTRACE_EXPORT void* g_object_newv(GType type, unsigned count, void* parameters) {
  void* object = glib().newv(type, count, parameters);
  return record_new("g_object_newv", object, __builtin_return_address(0));
}

RTRACE_EXPORT void* g_object_ref(void* object) {
  void* result = glib().ref(object);
  if (object != nullptr && recording()) {
    record_reference("g_object_ref", object, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void* g_object_ref_sink(void* object) {
  const bool floating =
      object != nullptr && glib().is_floating != nullptr && glib().is_floating(object) != 0;
  void* result = glib().ref_sink(object);
  if (object != nullptr && !floating && recording()) {
    record_reference("g_object_ref_sink", object, __builtin_return_address(0));
  }
  return result;
}

RTRACE_EXPORT void g_object_unref(void* object) {
  if (object != nullptr && recording()) {
    record_release("g_object_unref", object, __builtin_return_address(0));
  }
  glib().unref(object);
}

RTRACE_EXPORT void g_clear_object(void** object_pointer) {
  if (object_pointer != nullptr && *object_pointer != nullptr && recording()) {
    record_release("g_clear_object", *object_pointer, __builtin_return_address(0));
  }
  glib().clear_object(object_pointer);
}
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_gobject_start.register_in_order();
}

namespace {

// Registers the module at load, whether or not the program has GLib.
__attribute__((constructor)) void gobject_module_init() {
  rtrace::tracer::g_gobject_start.finish_registration();
}

}  // namespace
