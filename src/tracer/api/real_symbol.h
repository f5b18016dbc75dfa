// The one way the tracer finds the function it wraps: the next definition of `name` after the
// calling library (dlsym RTLD_NEXT). Modules call it once per function, when they resolve their
// table of real functions at load or at their first interposed call, never in a wrapper's hot
// path or from a signal handler (dlsym takes the loader lock and may allocate).
//
// A module declares each function it wraps once, in a list that makes its table of real
// functions (RTRACE_REAL_FUNCTIONS): the field's type comes from the C library's own declaration
// (decltype(::malloc)) and the symbol from the same name, so a signature and its symbol never
// drift apart. A function whose symbol is not its C name (a C++ operator's mangled name, glibc's
// __memcpy_chk, a library the module does not include the headers of) names both explicitly.
#pragma once

#include <dlfcn.h>

#include <cstddef>

namespace rtrace::tracer {

// Loaded by dlopen into a running process (rtrace record -p), our libraries are not in the
// program's global scope: librtrace-main.so's own entry points are not found there.
inline bool tracer_in_global_scope() {
  return ::dlsym(RTLD_DEFAULT, "rtrace_bootstrap") != nullptr;
}

// The definition the program's global scope binds `name` to, when it is one (a symbol starts at
// that address: not a non-PIE executable's PLT stub, which would lead back to our wrapper once
// the GOT entries are rewritten); null otherwise.
inline void* global_definition(const char* name) {
  void* global = ::dlsym(RTLD_DEFAULT, name);
  Dl_info info{};
  return global != nullptr && ::dladdr(global, &info) != 0 && info.dli_saddr == global ? global
                                                                                       : nullptr;
}

// True when `function` is defined by one of the tracer's libraries: an object whose scope (itself
// and its dependencies) has librtrace-main.so's rtrace_bootstrap.
inline bool defined_by_tracer_library(void* function) {
  Dl_info info{};
  if (::dladdr(function, &info) == 0 || info.dli_fname == nullptr) {
    return false;
  }
  void* handle = ::dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) {
    return false;
  }
  const bool ours = ::dlsym(handle, "rtrace_bootstrap") != nullptr;
  ::dlclose(handle);
  return ours;
}

template <typename Function>
void find_real(Function& target, const char* name) {
  // Attached to a running process, the real function is the one the program's calls reach: its
  // own scope's (mimalloc's malloc when it is linked with mimalloc), which RTLD_NEXT, searching
  // only our library's dependencies, would miss for the C library's.
  // A name another of our libraries wraps too stays chained to it, as under LD_PRELOAD.
  if (!tracer_in_global_scope()) {
    void* next = ::dlsym(RTLD_NEXT, name);
    if (next != nullptr && defined_by_tracer_library(next)) {
      target = reinterpret_cast<Function>(next);
      return;
    }
    target = reinterpret_cast<Function>(global_definition(name));
    if (target != nullptr) {
      return;
    }
  }
  target = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
  if (target != nullptr) {
    return;
  }
  // Loaded by dlopen into a running process (rtrace record -p), RTLD_NEXT searches only this
  // library's own dependencies: a function of another library of the program (libstdc++'s
  // operator new) is then the global definition, unless that one is this library's own.
  void* global = ::dlsym(RTLD_DEFAULT, name);
  Dl_info mine{};
  Dl_info theirs{};
  if (global != nullptr && ::dladdr(reinterpret_cast<void*>(&find_real<Function>), &mine) != 0 &&
      ::dladdr(global, &theirs) != 0 && mine.dli_fbase != theirs.dli_fbase) {
    target = reinterpret_cast<Function>(global);
  }
}

// A symbol's name as a template argument, so that a RealFunction stores only its pointer (the
// tables stay as small as tables of pointers).
template <std::size_t N>
struct SymbolName {
  constexpr SymbolName(const char (&name)[N]) {  // NOLINT(google-explicit-constructor)
    for (std::size_t i = 0; i < N; ++i) {
      text[i] = name[i];
    }
  }
  char text[N];
};

// The real definition of `symbol`, of type `Signature` (a function type), null until find()
// found it. It converts to its function pointer, so a wrapper calls and tests it as it would the
// pointer itself (the same load and indirect call).
template <typename Signature, SymbolName symbol>
class RealFunction {
 public:
  static constexpr const char* name() { return symbol.text; }

  // Looks the function up (find_real); true when it exists.
  bool find() {
    find_real(function_, symbol.text);
    return function_ != nullptr;
  }
  // NOLINTNEXTLINE(google-explicit-constructor): stands for the pointer
  operator Signature*() const { return function_; }
  // Whether it was found, read with acquire order: for a table filled on one thread while
  // others may call (a library loaded later), whose last entry says it is complete.
  bool found_acquire() const { return __atomic_load_n(&function_, __ATOMIC_ACQUIRE) != nullptr; }

 private:
  Signature* function_ = nullptr;
};

}  // namespace rtrace::tracer

// The macros' arguments are names and types, which parentheses would break.
// NOLINTBEGIN(bugprone-macro-parentheses)
// One entry of a module's list (see RTRACE_REAL_FUNCTIONS): a function declared by the headers
// the module includes, its field named as the function. The declaration's attributes (malloc,
// alloc_size, nonnull...) describe the function, not a pointer to it: the compiler drops them from
// the template argument, and says so, which is expected here.
// clang-format off
#define RTRACE_DETAIL_REAL_FIELD(function)                                   \
  _Pragma("GCC diagnostic push")                                             \
  _Pragma("GCC diagnostic ignored \"-Wignored-attributes\"")                 \
  ::rtrace::tracer::RealFunction<decltype(::function), #function> function; \
  _Pragma("GCC diagnostic pop")
// clang-format on
// An entry whose symbol or signature is given: field name, symbol, function type.
#define RTRACE_DETAIL_REAL_SYMBOL_FIELD(field, symbol, ...) \
  ::rtrace::tracer::RealFunction<__VA_ARGS__, symbol> field;
#define RTRACE_DETAIL_REAL_FIND(function) function.find();
#define RTRACE_DETAIL_REAL_SYMBOL_FIND(field, symbol, ...) field.find();

// Declares the struct `Table` with one RealFunction per entry of `LIST` and find_all(), which
// looks every one of them up. `LIST(FUNCTION, SYMBOL)` is a macro of the module's own that
// expands each wrapped function once: FUNCTION(malloc) for a function of the headers,
// SYMBOL(new_, "_Znwm", void*(std::size_t)) otherwise. The module then says which of them must
// exist (resolve's answer).
#define RTRACE_REAL_FUNCTIONS(Table, LIST)                                            \
  struct Table {                                                                      \
    LIST(RTRACE_DETAIL_REAL_FIELD, RTRACE_DETAIL_REAL_SYMBOL_FIELD)                   \
    void find_all() { LIST(RTRACE_DETAIL_REAL_FIND, RTRACE_DETAIL_REAL_SYMBOL_FIND) } \
  }
// NOLINTEND(bugprone-macro-parentheses)
