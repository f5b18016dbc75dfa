// librtrace-qobject.so: traces QObject instances (Qt 5) as the original's qobject module did: one
// resource type `qobject` ("QObject instance"), whose id is the object and whose size is 1;
// allocations named `QObject::QObject`, releases `QObject::~QObject`. Added: the object's class
// (from its meta-object) as the argument `class` of every allocation.
//
// How the calls are seen:
//  * Constructions made through the dynamic linker: the module defines libQt5Core's exported
//    constructors `QObject::QObject(QObject*)` and `QObject::QObject(QObjectPrivate&, QObject*)`
//    (complete- and base-object forms, C1 and C2), which the program's own subclasses and `new
//    QObject` call. Frame 0 is then the call site in the program.
//  * Every other construction and every destruction, through the hooks Qt 5 keeps for tools
//    (`qtHookData`, AddQObject and RemoveQObject, called by QObject's constructors and by its
//    destructor after the children are gone). libQt5Core binds its own functions inside itself
//    (-Bsymbolic-functions): the QObject vtable's destructor entries and the constructors of its
//    own classes (QTimer, ...) never reach an interposed symbol, so `delete` of a plain QObject,
//    or of a child Qt deletes, would be missed by interposing `QObject::~QObject`. The hooks of a
//    tool installed before us are chained.
//
// The class name. When QObject's constructor returns, the object's vtable is still QObject's
// (the derived constructors have not run yet); when its destructor runs, it is QObject's again
// (they have run). So the allocation is recorded later, at the first chance after construction:
// its backtrace is taken at once, and the record (with the class then read) is written at the
// next construction or destruction seen on the same thread, or when the module is unloaded at
// exit. The limits: an object destroyed before any such moment (`{ Derived d; }` and nothing
// else) is recorded with `class = (unknown)`; an object whose intermediate base class creates a
// QObject in its constructor body is named after that base class; the records come in the order
// they are written, so an object's allocation follows what its derived constructors did.
//
// Qt is never linked: a program without it must not load it. Its functions are found with dlsym
// at the module's start when the program links Qt, or at the first constructor call otherwise.
#include <pthread.h>

#include <cstring>

#include "tracer/api/module_lock.h"
#include "tracer/api/module_sdk.h"
#include "tracer/core/fixed_table.h"
#include "tracer/core/options.h"

namespace rtrace::tracer {
namespace {

// QObject's constructors and destructor as libQt5Core exports them (Itanium C++ ABI names).
#define RTRACE_QOBJECT_REAL_FUNCTIONS(FUNCTION, SYMBOL)                                           \
  SYMBOL(construct_complete, "_ZN7QObjectC1EPS_", void(void*, void*))                             \
  SYMBOL(construct_base, "_ZN7QObjectC2EPS_", void(void*, void*))                                 \
  SYMBOL(construct_private_complete, "_ZN7QObjectC1ER14QObjectPrivatePS_",                        \
         void(void*, void*, void*))                                                               \
  SYMBOL(construct_private_base, "_ZN7QObjectC2ER14QObjectPrivatePS_", void(void*, void*, void*)) \
  SYMBOL(class_name, "_ZNK11QMetaObject9classNameEv", const char*(const void*))                   \
  SYMBOL(hook_data, "qtHookData", std::uintptr_t)
RTRACE_REAL_FUNCTIONS(RealQObject, RTRACE_QOBJECT_REAL_FUNCTIONS);

// Qt 5's QHooks indices (qhooks_p.h): the hooks array's size, the two object callbacks.
constexpr std::size_t kHookDataSize = 1;
constexpr std::size_t kAddQObjectHook = 3;
constexpr std::size_t kRemoveQObjectHook = 4;
using ObjectHook = void (*)(void*);

constexpr std::uint64_t kObjectSize = 1;  // as the original: objects are counted, not measured
constexpr char kConstructorName[] = "QObject::QObject";
constexpr char kDestructorName[] = "QObject::~QObject";
constexpr char kUnknownClass[] = "(unknown)";

constinit RealQObject g_real_qobject;
constinit std::uint32_t g_qobject_resource = 1;
constinit ObjectHook g_previous_add_hook = nullptr;
constinit ObjectHook g_previous_remove_hook = nullptr;
constinit std::atomic<bool> g_hooks_installed{false};

void install_hooks();

// Finds what the process has of Qt; every pointer stays null without it.
void find_qt_functions() {
  RealQObject& r = g_real_qobject;
  r.find_all();
  install_hooks();
}

bool resolve_qobject_functions() {
  find_qt_functions();
  return true;  // complete even without Qt: the wrappers find it when it is there
}

void register_qobject_module() {
  rtrace_register_module("qobject", 1, 0);
  g_qobject_resource = rtrace_register_resource("qobject", "QObject instance", 0);
  rtrace_module_ready();
}

struct QObjectModule;  // the module's tag for ModuleStart
constinit ModuleStart<QObjectModule> g_qobject_start{resolve_qobject_functions,
                                                     register_qobject_module};

// The real functions. A constructor wrapper runs only when Qt is loaded; if it was loaded after
// the module started (dlopen), the table is filled now, once.
RealQObject& qt() {
  if (__builtin_expect(!g_real_qobject.construct_base.found_acquire(), 0)) {
    GuardScope guard;  // dlsym allocates
    find_qt_functions();
  }
  return g_real_qobject;
}

bool recording() {
  return g_qobject_start.ready() && tracing_now<QObjectModule>();
}

// ---- the object's class -----------------------------------------------------------------------

// QObject::metaObject() is the first virtual function of every QObject (Q_OBJECT's own
// declaration comes first in QObject's class body): slot 0 of the object's vtable.
const char* class_of(const void* object) {
  using MetaObjectFunction = const void* (*)(const void*);
  const auto* vtable = *static_cast<MetaObjectFunction* const*>(object);
  const void* meta_object = vtable[0](object);
  if (meta_object == nullptr || g_real_qobject.class_name == nullptr) {
    return kUnknownClass;
  }
  return g_real_qobject.class_name(meta_object);
}

// ---- allocations waiting for their class --------------------------------------------------------

// A constructed object whose allocation is not written yet: its backtrace, taken at once.
struct PendingObject {
  bool used = false;
  pthread_t thread{};
  void* object = nullptr;
  bool complete = false;  // constructed as a plain QObject (C1): its class is known already
  std::uint32_t frame_count = 0;
  std::uintptr_t frames[TracerOptions::kMaxDepth] = {};
};

constexpr std::size_t kMaxPending = 64;
constinit ModuleLock g_pending_lock;
constinit PendingObject g_pending[kMaxPending];
constinit std::atomic<int> g_pending_count{0};
constinit PendingObject g_overflow;  // under the lock: when every slot is taken

// Writes the allocation of `pending` with its class `class_name`.
void write_allocation(const PendingObject& pending, const char* class_name) {
  const RtraceArg args[] = {{"class", class_name}};
  const RtraceCall call{g_qobject_resource,
                        sprtrace::kCallAlloc,
                        kConstructorName,
                        kObjectSize,
                        reinterpret_cast<std::uintptr_t>(pending.object),
                        args,
                        1};
  rtrace_record_with_backtrace(&call, pending.frames, pending.frame_count);
}

// The class of a waiting object now. `dying`: the object whose destruction is under way, whose
// vtable is QObject's again (its class is lost, unless it was a plain QObject).
const char* class_now(const PendingObject& pending, const void* dying) {
  if (pending.complete) {
    return "QObject";
  }
  return pending.object == dying ? kUnknownClass : class_of(pending.object);
}

// Which waiting objects settle_pending writes out.
enum class Settle : std::uint8_t {
  ThisThread,  // this thread's (and the dying object, whichever thread made it)
  Everyone,    // every thread's: at exit
};

// Writes out the allocation waiting on this thread (one at most: each construction writes the
// thread's earlier one first; more only in the overflow path below), and that of `dying`
// wherever it was made (its memory is about to go: nothing may read it later). Without a trace
// (toggled off) they are dropped instead. Runs under the tracer guard: reading the class calls
// into Qt, nobody's record.
void settle_pending(const void* dying, Settle which, bool write) {
  if (g_pending_count.load(std::memory_order_relaxed) == 0) {
    return;
  }
  GuardScope guard;
  LockScope lock(g_pending_lock);
  const pthread_t self = pthread_self();
  for (PendingObject& pending : g_pending) {
    const bool ours = which == Settle::Everyone || pthread_equal(pending.thread, self) != 0;
    if (!pending.used || (!ours && pending.object != dying)) {
      continue;
    }
    if (write) {
      write_allocation(pending, class_now(pending, dying));
    }
    pending.used = false;
    g_pending_count.fetch_sub(1, std::memory_order_relaxed);
  }
}

// A construction of `object` seen by a wrapper (`complete`: a plain QObject) or by the hook:
// takes its backtrace now and keeps it until the class can be read.
void constructed(void* object, bool complete, const void* return_address) {
  settle_pending(nullptr, Settle::ThisThread, true);
  GuardScope guard;
  const RtraceCall call{g_qobject_resource,
                        sprtrace::kCallAlloc,
                        kConstructorName,
                        kObjectSize,
                        reinterpret_cast<std::uintptr_t>(object),
                        nullptr,
                        0};
  LockScope lock(g_pending_lock);
  for (PendingObject& pending : g_pending) {
    if (!pending.used) {
      pending.thread = pthread_self();
      pending.object = object;
      pending.complete = complete;
      pending.frame_count = rtrace_backtrace(&call, return_address, pending.frames);
      pending.used = true;
      g_pending_count.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  // Every slot taken (objects waiting in many threads): written now, with the class of the
  // moment.
  g_overflow.object = object;
  g_overflow.frame_count = rtrace_backtrace(&call, return_address, g_overflow.frames);
  write_allocation(g_overflow, complete ? "QObject" : class_of(object));
}

// The object a constructor wrapper of this thread is constructing: the AddQObject hook, called
// by that very constructor, leaves it to the wrapper (which knows the program's call site).
thread_local void* t_constructing __attribute__((tls_model("initial-exec"))) = nullptr;

class Constructing {
 public:
  explicit Constructing(void* object) : saved_(t_constructing) { t_constructing = object; }
  Constructing(const Constructing&) = delete;
  Constructing& operator=(const Constructing&) = delete;
  ~Constructing() { t_constructing = saved_; }

 private:
  void* saved_;
};

// ---- Qt's hooks -------------------------------------------------------------------------------

void on_add_object(void* object) {
  if (object != t_constructing && recording()) {
    constructed(object, false, __builtin_return_address(0));
  }
  if (g_previous_add_hook != nullptr) {
    g_previous_add_hook(object);
  }
}

// Called by ~QObject once the children are gone, before the object's memory is released.
void on_remove_object(void* object) {
  const bool tracing = recording();
  settle_pending(object, Settle::ThisThread, tracing);
  if (tracing) {
    ReleaseRecorder release(g_qobject_resource, kDestructorName,
                            reinterpret_cast<std::uintptr_t>(object), __builtin_return_address(0));
    release.commit();
  }
  if (g_previous_remove_hook != nullptr) {
    g_previous_remove_hook(object);
  }
}

// Puts our callbacks into qtHookData (once; keeping the ones a tool installed before us).
void install_hooks() {
  std::uintptr_t* hooks = g_real_qobject.hook_data;
  if (hooks == nullptr || hooks[kHookDataSize] <= kRemoveQObjectHook ||
      g_hooks_installed.exchange(true)) {
    return;  // never twice: we would find ourselves as the hook to chain
  }
  // NOLINTBEGIN(performance-no-int-to-ptr): Qt keeps the callbacks as integers (quintptr)
  g_previous_add_hook = reinterpret_cast<ObjectHook>(hooks[kAddQObjectHook]);
  g_previous_remove_hook = reinterpret_cast<ObjectHook>(hooks[kRemoveQObjectHook]);
  // NOLINTEND(performance-no-int-to-ptr)
  hooks[kAddQObjectHook] = reinterpret_cast<std::uintptr_t>(&on_add_object);
  hooks[kRemoveQObjectHook] = reinterpret_cast<std::uintptr_t>(&on_remove_object);
}

// At unload (exit): the objects still waiting are written (the session ends after us: our
// library depends on librtrace-main.so), and Qt's hooks are given back.
void finish_module() {
  settle_pending(nullptr, Settle::Everyone, recording());
  std::uintptr_t* hooks = g_real_qobject.hook_data;
  if (hooks != nullptr &&
      hooks[kAddQObjectHook] == reinterpret_cast<std::uintptr_t>(&on_add_object)) {
    hooks[kAddQObjectHook] = reinterpret_cast<std::uintptr_t>(g_previous_add_hook);
    hooks[kRemoveQObjectHook] = reinterpret_cast<std::uintptr_t>(g_previous_remove_hook);
  }
}

// A constructor called through the dynamic linker: `complete` for C1 (a plain QObject).
template <typename Construct>
void traced_construction(void* object, bool complete, const void* return_address,
                         Construct&& construct) {
  qt();
  if (!recording()) {
    construct();
    return;
  }
  {
    Constructing scope(object);
    construct();
  }
  constructed(object, complete, return_address);
}

}  // namespace
}  // namespace rtrace::tracer

using rtrace::tracer::qt;
using rtrace::tracer::traced_construction;

// Qt's exported constructors, by their mangled names. The real constructors run outside any
// guard: the program's code they reach (a parent's childEvent) is the program's doing.
// NOLINTBEGIN(bugprone-reserved-identifier): libQt5Core's names, which the program calls.
extern "C" {

RTRACE_EXPORT void _ZN7QObjectC1EPS_(void* self, void* parent) {
  traced_construction(self, true, __builtin_return_address(0),
                      [&] { qt().construct_complete(self, parent); });
}

RTRACE_EXPORT void _ZN7QObjectC2EPS_(void* self, void* parent) {
  traced_construction(self, false, __builtin_return_address(0),
                      [&] { qt().construct_base(self, parent); });
}

RTRACE_EXPORT void _ZN7QObjectC1ER14QObjectPrivatePS_(void* self, void* d, void* parent) {
  traced_construction(self, false, __builtin_return_address(0),
                      [&] { qt().construct_private_complete(self, d, parent); });
}

RTRACE_EXPORT void _ZN7QObjectC2ER14QObjectPrivatePS_(void* self, void* d, void* parent) {
  traced_construction(self, false, __builtin_return_address(0),
                      [&] { qt().construct_private_base(self, d, parent); });
}
}
// NOLINTEND(bugprone-reserved-identifier)

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_qobject_start.register_in_order();
}

namespace {

// Registers the module at load, whether or not the program has Qt (and hooks Qt when it has).
__attribute__((constructor)) void qobject_module_init() {
  rtrace::tracer::keep_lock_across_fork<rtrace::tracer::g_pending_lock>();
  rtrace::tracer::g_qobject_start.finish_registration();
}

__attribute__((destructor)) void qobject_module_fini() {
  rtrace::tracer::finish_module();
}

}  // namespace
