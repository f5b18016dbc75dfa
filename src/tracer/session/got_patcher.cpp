#include "tracer/session/got_patcher.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "tracer/session/got_relocations.h"

namespace rtrace::tracer {
namespace {

constexpr std::size_t kMaxHooks = 512;
constexpr std::size_t kMaxObjects = 2048;
constexpr std::size_t kMaxEntries = 1 << 16;

// Which entries binding a hook's name the patcher rewrites.
enum class HookRule : std::uint8_t {
  // The tracer was loaded late: those bound to `bound`, to `replacement`.
  Attached,
  // The tracer is preloaded and `bound` is its function: those holding another library's
  // definition of the name, bound in a scope of the object's own (RTLD_DEEPBIND), to `bound`.
  Preloaded,
  // The tracer is preloaded and the program binds the name elsewhere (its own malloc): none.
  LeftAlone,
};

struct Hook {
  const char* name;  // in its library's string table (the library stays loaded)
  std::uint32_t hash;
  void* replacement;
  void* bound;  // what the dynamic linker binds the name to in the program
  HookRule rule;
};

// One rewritten entry: where, what it held, and the object it belongs to (its dynamic section).
struct Entry {
  void** slot;
  void* original;
  const void* object;
  bool read_only;  // in the object's RELRO range
};

struct Tables {
  Hook hooks[kMaxHooks];
  std::size_t hook_count;
  const void* objects[kMaxObjects];  // the objects patched, by their dynamic section
  std::size_t object_count;
  Entry entries[kMaxEntries];
  std::size_t entry_count;
};

Tables* g_tables = nullptr;
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;

class TablesLock {
 public:
  TablesLock() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
      ::usleep(100);
    }
  }
  TablesLock(const TablesLock&) = delete;
  TablesLock& operator=(const TablesLock&) = delete;
  ~TablesLock() { g_lock.clear(std::memory_order_release); }
};

bool allocate_tables() {
  if (g_tables == nullptr) {
    void* memory =
        ::mmap(nullptr, sizeof(Tables), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      return false;
    }
    g_tables = static_cast<Tables*>(memory);
  }
  return true;
}

std::uint32_t name_hash(const char* name) {
  std::uint32_t hash = 2166136261U;
  for (const auto* c = reinterpret_cast<const unsigned char*>(name); *c != '\0'; ++c) {
    hash = (hash ^ *c) * 16777619U;
  }
  return hash;
}

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

// The tracer's own libraries: their calls are the tracer's (and their real functions must stay
// real). librtrace-context.so is a library programs link against: its callers are patched.
bool is_tracer_library(const char* path) {
  const char* name = base_name(path);
  return std::strncmp(name, "librtrace-", 10) == 0 &&
         std::strcmp(name, "librtrace-context.so") != 0;
}

// The dynamic linker binds through its own tables, and its few GOT entries run before ours can.
bool is_dynamic_linker(const char* path) {
  return std::strncmp(base_name(path), "ld-linux", 8) == 0 ||
         std::strstr(path, "/ld.so") != nullptr;
}

Hook* find_hook(const char* name) {
  const std::uint32_t hash = name_hash(name);
  for (std::size_t i = 0; i < g_tables->hook_count; ++i) {
    Hook& hook = g_tables->hooks[i];
    if (hook.hash == hash && std::strcmp(hook.name, name) == 0) {
      return &hook;
    }
  }
  return nullptr;
}

// The interface between the tracer's libraries, not the program's functions.
bool is_hookable(const char* name) {
  return std::strncmp(name, "rtrace_", 7) != 0;
}

void add_hook(const char* name, void* replacement) {
  if (!is_hookable(name)) {
    return;
  }
  if (Hook* known = find_hook(name)) {
    known->replacement = replacement;  // the last library loaded wraps the earlier ones
    return;
  }
  if (g_tables->hook_count < kMaxHooks) {
    g_tables->hooks[g_tables->hook_count++] = {name, name_hash(name), replacement, nullptr,
                                               HookRule::Attached};
  }
}

int collect_library(dl_phdr_info* info, std::size_t, void*) {
  if (info->dlpi_name == nullptr || !is_tracer_library(info->dlpi_name)) {
    return 0;
  }
  const DynamicObject object = read_dynamic_object(*info);
  for_each_exported_function(object,
                             [](const char* name, void* address) { add_hook(name, address); });
  return 0;
}

bool object_patched(const void* key) {
  for (std::size_t i = 0; i < g_tables->object_count; ++i) {
    if (g_tables->objects[i] == key) {
      return true;
    }
  }
  return false;
}

// Writes `value` into `slot`, making a read-only (RELRO) page writable for the time of it.
void write_slot(void** slot, void* value, bool read_only) {
  if (!read_only) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return;
  }
  const long page_size = ::sysconf(_SC_PAGESIZE);
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address the ELF tables hold as a number
  auto* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(slot) &
                                       ~(static_cast<std::uintptr_t>(page_size) - 1));
  if (::mprotect(page, static_cast<std::size_t>(page_size), PROT_READ | PROT_WRITE) == 0) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    ::mprotect(page, static_cast<std::size_t>(page_size), PROT_READ);
  }
}

// The loaded object whose code `address` is in, as a handle for dlsym (glibc's handles are
// link maps); null when it is none or a tracer library.
link_map* object_outside_tracer(const void* address) {
  Dl_info info{};
  link_map* map = nullptr;
  if (::dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr || (map->l_name != nullptr && is_tracer_library(map->l_name))) {
    return nullptr;
  }
  return map;
}

// A search of the loaded objects for a definition: `name` exported at `address` by an object
// other than the tracer's libraries.
struct DefinitionSearch {
  const void* address;
  const char* name;
  bool found;
};

int find_definition(dl_phdr_info* info, std::size_t, void* data) {
  auto& search = *static_cast<DefinitionSearch*>(data);
  const DynamicObject object = read_dynamic_object(*info);
  if (!object.contains(search.address)) {
    return 0;
  }
  if (info->dlpi_name == nullptr || !is_tracer_library(info->dlpi_name)) {
    for_each_exported_function(object, [&](const char* name, void* address) {
      search.found =
          search.found || (address == search.address && std::strcmp(name, search.name) == 0);
    });
  }
  return 1;  // the object holding the address: no other can
}

// Whether `current` is the definition of `name` in a library other than the tracer's (not a
// function of another name at that address). Read from the objects' own symbol tables: dlsym
// on an object loaded at start-up may not search it.
bool is_library_definition(void* current, const char* name) {
  DefinitionSearch search{current, name, false};
  ::dl_iterate_phdr(find_definition, &search);
  return search.found;
}

// What `slot` (an entry binding `hook`'s name, `lazy` when it may hold the object's own stub)
// gets, or null when it keeps what it holds: attached, the entries bound to the function the
// program's scope binds the name to; preloaded, those an object's own scope bound elsewhere.
void* replacement_for(const Hook& hook, const DynamicObject& object, void* current, bool lazy) {
  const bool unbound_stub = lazy && object.contains(current);
  if (hook.rule == HookRule::LeftAlone) {
    return nullptr;
  }
  if (hook.rule == HookRule::Preloaded) {
    const bool elsewhere = current != hook.bound && is_library_definition(current, hook.name);
    return unbound_stub || elsewhere ? hook.bound : nullptr;
  }
  if (current == hook.replacement || (current != hook.bound && !unbound_stub)) {
    return nullptr;
  }
  return hook.replacement;
}

std::size_t patch_object(const DynamicObject& object) {
  std::size_t changed = 0;
  for_each_function_slot(object, [&](const char* name, void** slot, bool lazy) {
    Hook* hook = find_hook(name);
    if (hook == nullptr || g_tables->entry_count >= kMaxEntries) {
      return;
    }
    void* current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    void* replacement = replacement_for(*hook, object, current, lazy);
    if (replacement == nullptr) {
      return;
    }
    const bool read_only = object.in_relro(slot);
    g_tables->entries[g_tables->entry_count++] = {slot, current, object.key, read_only};
    write_slot(slot, replacement, read_only);
    ++changed;
  });
  return changed;
}

// Whether the object at `info` is in the program's namespace (not one of dlmopen's: the tracer's
// libraries are not loaded there, and that namespace's C library has a heap of its own).
bool in_base_namespace(const dl_phdr_info& info, const DynamicObject& object) {
  Dl_info symbol{};
  link_map* map = nullptr;
  if (object.key == nullptr ||
      ::dladdr1(object.key, &symbol, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
      map == nullptr) {
    return info.dlpi_name == nullptr || info.dlpi_name[0] == '\0';  // the program itself
  }
  Lmid_t namespace_id = LM_ID_BASE;
  return ::dlinfo(map, RTLD_DI_LMID, &namespace_id) == 0 && namespace_id == LM_ID_BASE;
}

struct PatchPass {
  std::size_t changed = 0;
};

int patch_loaded(dl_phdr_info* info, std::size_t, void* data) {
  auto& pass = *static_cast<PatchPass*>(data);
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (is_tracer_library(name) || is_dynamic_linker(name)) {
    return 0;
  }
  const DynamicObject object = read_dynamic_object(*info);
  if (object.key == nullptr || object_patched(object.key) ||
      g_tables->object_count >= kMaxObjects || !in_base_namespace(*info, object)) {
    return 0;
  }
  g_tables->objects[g_tables->object_count++] = object.key;
  pass.changed += patch_object(object);
  return 0;
}

// The objects loaded now, by their dynamic section (for got_forget_unloaded).
struct LiveObjects {
  const void* keys[kMaxObjects] = {};
  std::size_t count = 0;
  bool contains(const void* key) const {
    for (std::size_t i = 0; i < count; ++i) {
      if (keys[i] == key) {
        return true;
      }
    }
    return false;
  }
};

// Too large for a thread's stack; used under the lock. Constant-initialized: no C++ runtime guard
// (the tracer's libraries link no C++ runtime).
constinit LiveObjects g_live{};

int note_live(dl_phdr_info* info, std::size_t, void* data) {
  auto& live = *static_cast<LiveObjects*>(data);
  const DynamicObject object = read_dynamic_object(*info);
  if (object.key != nullptr && live.count < kMaxObjects) {
    live.keys[live.count++] = object.key;
  }
  return 0;
}

// Reads the hooks; `preloaded`: with the rules of a preloaded tracer (HookRule).
bool collect_hooks(bool preloaded) {
  if (!allocate_tables()) {
    return false;
  }
  g_tables->hook_count = 0;
  ::dl_iterate_phdr(collect_library, nullptr);
  for (std::size_t i = 0; i < g_tables->hook_count; ++i) {
    Hook& hook = g_tables->hooks[i];
    hook.bound = ::dlsym(RTLD_DEFAULT, hook.name);
    if (preloaded) {
      const bool ours = hook.bound != nullptr && object_outside_tracer(hook.bound) == nullptr;
      hook.rule = ours ? HookRule::Preloaded : HookRule::LeftAlone;
    }
  }
  return g_tables->hook_count > 0;
}

}  // namespace

bool got_collect_hooks() {
  const TablesLock lock;
  return collect_hooks(false);
}

bool got_collect_preloaded_hooks() {
  const TablesLock lock;
  return (g_tables != nullptr && g_tables->hook_count > 0) || collect_hooks(true);
}

std::size_t got_patch_objects() {
  const TablesLock lock;
  if (g_tables == nullptr || g_tables->hook_count == 0) {
    return 0;
  }
  PatchPass pass;
  ::dl_iterate_phdr(patch_loaded, &pass);
  return pass.changed;
}

void got_restore() {
  const TablesLock lock;
  if (g_tables == nullptr) {
    return;
  }
  for (std::size_t i = g_tables->entry_count; i > 0; --i) {
    const Entry& entry = g_tables->entries[i - 1];
    const Hook* hook = nullptr;
    void* current = __atomic_load_n(entry.slot, __ATOMIC_ACQUIRE);
    for (std::size_t h = 0; h < g_tables->hook_count && hook == nullptr; ++h) {
      hook = g_tables->hooks[h].replacement == current ? &g_tables->hooks[h] : nullptr;
    }
    if (hook != nullptr) {  // the program did not rewrite it meanwhile
      write_slot(entry.slot, entry.original, entry.read_only);
    }
  }
  g_tables->entry_count = 0;
  g_tables->object_count = 0;
}

void got_forget_unloaded() {
  const TablesLock lock;
  if (g_tables == nullptr || g_tables->entry_count == 0) {
    return;
  }
  LiveObjects& live = g_live;
  live.count = 0;
  ::dl_iterate_phdr(note_live, &live);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < g_tables->entry_count; ++i) {
    if (live.contains(g_tables->entries[i].object)) {
      g_tables->entries[kept++] = g_tables->entries[i];
    }
  }
  g_tables->entry_count = kept;
  std::size_t kept_objects = 0;
  for (std::size_t i = 0; i < g_tables->object_count; ++i) {
    if (live.contains(g_tables->objects[i])) {
      g_tables->objects[kept_objects++] = g_tables->objects[i];
    }
  }
  g_tables->object_count = kept_objects;
}

}  // namespace rtrace::tracer
