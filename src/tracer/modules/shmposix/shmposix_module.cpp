// librtrace-shmposix.so: POSIX shared memory and memory mappings, as the original shmposix
// module records them.
//
// Resource types, in this order: `pshmmap` (mappings of a shared memory object), `fshmmap`
// (mappings of a file), `shmmap` (any other mapping: anonymous, or of a descriptor opened before
// tracing), `pshmobj` (a named object) and `pshmfd` (a descriptor of one).
//
//  * shm_open: with O_CREAT an allocation `shm_open<pshmobj>(1) = id` (the id stands for the
//    name: its one-at-a-time hash, the next free value when another name has it), then always
//    `shm_open<pshmfd>(1) = fd`; both with arguments `name`, `oflag` and `mode` (hex).
//  * shm_unlink: release `shm_unlink<pshmobj>(id)`, argument `name`.
//  * mmap, mmap64: allocation `mmap<type>(length) = address`, arguments `length`, `prot`,
//    `flags`, `fd`, `offset` (hex), and for a descriptor from shm_open/open/creat its `name` and
//    open `mode`. The type comes from the descriptor: pshmmap, fshmmap or shmmap.
//  * munmap: release `munmap<type>(address)` (the type its mmap had; shmmap for an address never
//    seen mapped), argument `length` (decimal).
//  * close of a shm_open descriptor: release `close<pshmfd>(fd)`.
//  * open, open64, creat: nothing recorded; they name the descriptors that mmap describes.
//  * ftruncate (which sizes an object) is not interposed, as in the original.
//
// Unlike the original, failed calls are not recorded (a failed mmap was an allocation of
// MAP_FAILED, a failed shm_unlink a release), a closed descriptor is forgotten (the original
// kept it, and described the next descriptor with that number by the old name), and munmap
// takes the type from the mapping, not from the descriptor (which may be closed by then).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstring>

#include "tracer/api/module_lock.h"
#include "tracer/api/module_sdk.h"
#include "tracer/core/decimal.h"
#include "tracer/core/fixed_table.h"

namespace rtrace::tracer {
namespace {

#define RTRACE_SHMPOSIX_REAL_FUNCTIONS(FUNCTION, SYMBOL) \
  FUNCTION(shm_open)                                     \
  FUNCTION(shm_unlink)                                   \
  FUNCTION(open)                                         \
  FUNCTION(open64)                                       \
  FUNCTION(creat)                                        \
  FUNCTION(mmap)                                         \
  FUNCTION(mmap64)                                       \
  FUNCTION(munmap)                                       \
  FUNCTION(close)
RTRACE_REAL_FUNCTIONS(RealShmposixFunctions, RTRACE_SHMPOSIX_REAL_FUNCTIONS);

constinit RealShmposixFunctions g_real;
std::uint32_t g_pshmmap = 1;
std::uint32_t g_fshmmap = 2;
std::uint32_t g_shmmap = 3;
std::uint32_t g_pshmobj = 4;
std::uint32_t g_pshmfd = 5;

// Names longer than this are cut in the `name` arguments of mmap.
constexpr std::size_t kNameSize = 256;

struct Name {
  char text[kNameSize];
};

void copy_name(Name& target, const char* source) {
  std::size_t i = 0;
  for (; source != nullptr && source[i] != '\0' && i + 1 < kNameSize; ++i) {
    target.text[i] = source[i];
  }
  target.text[i] = '\0';
}

bool same_name(const Name& known, const char* name) {
  return std::strncmp(known.text, name, kNameSize - 1) == 0;
}

// What a descriptor was opened as.
struct Descriptor {
  bool shared_memory = false;  // shm_open, else open/creat
  int mode = 0;                // the open flags
  Name name{};
};

ModuleLock g_lock;
FixedTable<Descriptor, 1024> g_descriptors;  // fd -> what it is
FixedTable<std::uint32_t, 8192> g_mappings;  // address -> resource type of its mapping
FixedTable<Name, 1024> g_object_ids;         // object id -> its name

bool resolve_real_functions() {
  g_real.find_all();
  return g_real.shm_open != nullptr && g_real.shm_unlink != nullptr && g_real.open != nullptr &&
         g_real.open64 != nullptr && g_real.creat != nullptr && g_real.mmap != nullptr &&
         g_real.mmap64 != nullptr && g_real.munmap != nullptr && g_real.close != nullptr;
}

void register_shmposix_module() {
  rtrace_register_module("shmposix", 1, 0);
  g_pshmmap = rtrace_register_resource("pshmmap", "posix shared memory mapping", 0);
  g_fshmmap = rtrace_register_resource("fshmmap", "file mapping", 0);
  g_shmmap = rtrace_register_resource("shmmap", "generic memory mapping", 0);
  g_pshmobj = rtrace_register_resource("pshmobj", "posix shared memory object", 0);
  g_pshmfd = rtrace_register_resource("pshmfd", "opened posix shared memory object", 0);
  rtrace_module_ready();
}

struct ShmposixModule;
constinit ModuleStart<ShmposixModule> g_start{resolve_real_functions, register_shmposix_module};

// The module's own guard (module_sdk.h): held while a real function runs, so that the module's
// wrappers pass on what it calls; the other modules still record it.
using ShmposixGuard = OwnGuard<ShmposixModule>;
inline bool shmposix_tracing_now() {
  return tracing_now<ShmposixModule>();
}

// Bob Jenkins' one-at-a-time hash of a name, as the original numbers its objects.
std::uint32_t name_hash(const char* name) {
  std::uint32_t hash = 0;
  for (const char* c = name; *c != '\0'; ++c) {
    hash += static_cast<unsigned char>(*c);
    hash += hash << 10;
    hash ^= hash >> 6;
  }
  hash += hash << 3;
  hash ^= hash >> 11;
  hash += hash << 15;
  return hash;
}

// The id of object `name`: the id it got the first time, else its hash, or the next value no
// other name has.
std::uint32_t object_id(const char* name) {
  std::uint32_t id = name_hash(name);
  for (;;) {
    const Name* known = g_object_ids.find(id);
    if (known == nullptr) {
      Name entry{};
      copy_name(entry, name);
      g_object_ids.put(id, entry);
      return id;
    }
    if (same_name(*known, name)) {
      return id;
    }
    ++id;
  }
}

void remember_descriptor(int fd, bool shared_memory, const char* name, int mode) {
  Descriptor descriptor{.shared_memory = shared_memory, .mode = mode};
  copy_name(descriptor.name, name);
  g_descriptors.put(static_cast<std::uint64_t>(fd), descriptor);
}

std::uint64_t address_id(const void* address) {
  return reinterpret_cast<std::uintptr_t>(address);
}

// Text of a number, for the arguments.
struct Hex {
  explicit Hex(std::uint64_t value) { *write_hex(text, value) = '\0'; }
  char text[24];
};
struct Decimal {
  explicit Decimal(std::uint64_t value) { *write_decimal(text, value) = '\0'; }
  char text[24];
};

void record_shm_open(const char* name, int flags, mode_t mode, int fd, const void* return_address) {
  remember_descriptor(fd, true, name, flags);
  const Hex flags_text(static_cast<unsigned int>(flags));
  const Hex mode_text(mode);
  const RtraceArg args[] = {{"name", name}, {"oflag", flags_text.text}, {"mode", mode_text.text}};
  if ((flags & O_CREAT) != 0) {
    record_allocation(g_pshmobj, "shm_open", 1, object_id(name), return_address, args, 3);
  }
  record_allocation(g_pshmfd, "shm_open", 1, static_cast<std::uint64_t>(fd), return_address, args,
                    3);
}

// The mapping just made at `address`: its record, typed by what `fd` is.
void record_mapping(const char* function, void* address, std::size_t length, int prot, int flags,
                    int fd, std::int64_t offset, const void* return_address) {
  const Descriptor* descriptor = g_descriptors.find(static_cast<std::uint64_t>(fd));
  std::uint32_t type = g_shmmap;
  if (descriptor != nullptr) {
    type = descriptor->shared_memory ? g_pshmmap : g_fshmmap;
  }
  g_mappings.put(address_id(address), type);
  const Hex length_text(length);
  const Hex prot_text(static_cast<unsigned int>(prot));
  const Hex flags_text(static_cast<unsigned int>(flags));
  const Hex fd_text(static_cast<unsigned int>(fd));
  const Hex offset_text(static_cast<std::uint64_t>(offset));
  const Hex mode_text(descriptor != nullptr ? static_cast<unsigned int>(descriptor->mode) : 0U);
  const RtraceArg args[] = {
      {"length", length_text.text}, {"prot", prot_text.text},
      {"flags", flags_text.text},   {"fd", fd_text.text},
      {"offset", offset_text.text}, {"name", descriptor != nullptr ? descriptor->name.text : ""},
      {"mode", mode_text.text}};
  record_allocation(type, function, length, address_id(address), return_address, args,
                    descriptor != nullptr ? 7 : 5);
}

// mmap and mmap64: the real call, recorded when it succeeded.
template <typename Map>
void* traced_mapping(const char* function, std::size_t length, int prot, int flags, int fd,
                     std::int64_t offset, const void* return_address, Map&& map) {
  if (!shmposix_tracing_now()) {
    return map();
  }
  ShmposixGuard guard;
  LockScope lock(g_lock);
  void* address = map();
  if (address != MAP_FAILED) {
    record_mapping(function, address, length, prot, flags, fd, offset, return_address);
  }
  return address;
}

// open, open64, creat: the real call; a descriptor it returns is remembered for mmap.
template <typename Open>
int remembered_open(const char* path, int flags, Open&& open) {
  if (!shmposix_tracing_now()) {
    return open();
  }
  ShmposixGuard guard;
  LockScope lock(g_lock);
  const int fd = open();
  if (fd >= 0) {
    remember_descriptor(fd, false, path, flags);
  }
  return fd;
}

// The mode argument of open/open64, present only when the flags create a file.
mode_t creation_mode(int flags, va_list& rest) {
  const bool creates = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
  return creates ? static_cast<mode_t>(va_arg(rest, unsigned int)) : 0;
}

}  // namespace
}  // namespace rtrace::tracer

using rtrace::tracer::g_real;
using rtrace::tracer::g_start;
using rtrace::tracer::LockScope;
using rtrace::tracer::ReleaseRecorder;
using rtrace::tracer::shmposix_tracing_now;
using rtrace::tracer::ShmposixGuard;

extern "C" {

RTRACE_EXPORT int shm_open(const char* name, int flags, mode_t mode) {
  if (!g_start.ready()) {
    errno = ENOSYS;  // only while the module finds its functions: nobody opens objects then
    return -1;
  }
  if (!shmposix_tracing_now()) {
    return g_real.shm_open(name, flags, mode);
  }
  ShmposixGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const int fd = g_real.shm_open(name, flags, mode);
  if (fd >= 0) {
    rtrace::tracer::record_shm_open(name, flags, mode, fd, __builtin_return_address(0));
  }
  return fd;
}

RTRACE_EXPORT int shm_unlink(const char* name) {
  if (!g_start.ready()) {
    errno = ENOSYS;
    return -1;
  }
  if (!shmposix_tracing_now()) {
    return g_real.shm_unlink(name);
  }
  ShmposixGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const RtraceArg args[] = {{"name", name}};
  ReleaseRecorder release(rtrace::tracer::g_pshmobj, "shm_unlink", rtrace::tracer::object_id(name),
                          __builtin_return_address(0), args, 1);
  const int result = g_real.shm_unlink(name);
  if (result == 0) {
    release.commit();
  }
  return result;
}

RTRACE_EXPORT int open(const char* path, int flags, ...) {
  va_list rest;
  va_start(rest, flags);
  const mode_t mode = rtrace::tracer::creation_mode(flags, rest);
  va_end(rest);
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags, mode));
  }
  return rtrace::tracer::remembered_open(path, flags,
                                         [&] { return g_real.open(path, flags, mode); });
}

RTRACE_EXPORT int open64(const char* path, int flags, ...) {
  va_list rest;
  va_start(rest, flags);
  const mode_t mode = rtrace::tracer::creation_mode(flags, rest);
  va_end(rest);
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_openat, AT_FDCWD, path, flags | O_LARGEFILE, mode));
  }
  return rtrace::tracer::remembered_open(path, flags,
                                         [&] { return g_real.open64(path, flags, mode); });
}

RTRACE_EXPORT int creat(const char* path, mode_t mode) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_creat, path, mode));
  }
  return rtrace::tracer::remembered_open(path, O_CREAT | O_WRONLY | O_TRUNC,
                                         [&] { return g_real.creat(path, mode); });
}

RTRACE_EXPORT void* mmap(void* wanted, std::size_t length, int prot, int flags, int fd,
                         off_t offset) {
  if (!g_start.ready()) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the system call returns the address as a number
    return reinterpret_cast<void*>(::syscall(SYS_mmap, wanted, length, prot, flags, fd, offset));
  }
  return rtrace::tracer::traced_mapping(
      "mmap", length, prot, flags, fd, offset, __builtin_return_address(0),
      [&] { return g_real.mmap(wanted, length, prot, flags, fd, offset); });
}

RTRACE_EXPORT void* mmap64(void* wanted, std::size_t length, int prot, int flags, int fd,
                           off64_t offset) {
  if (!g_start.ready()) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the system call returns the address as a number
    return reinterpret_cast<void*>(::syscall(SYS_mmap, wanted, length, prot, flags, fd, offset));
  }
  return rtrace::tracer::traced_mapping(
      "mmap64", length, prot, flags, fd, offset, __builtin_return_address(0),
      [&] { return g_real.mmap64(wanted, length, prot, flags, fd, offset); });
}

RTRACE_EXPORT int munmap(void* address, std::size_t length) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_munmap, address, length));
  }
  if (!shmposix_tracing_now()) {
    return g_real.munmap(address, length);
  }
  ShmposixGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const std::uint64_t key = rtrace::tracer::address_id(address);
  const std::uint32_t* type = rtrace::tracer::g_mappings.find(key);
  const rtrace::tracer::Decimal length_text(length);
  const RtraceArg args[] = {{"length", length_text.text}};
  ReleaseRecorder release(type != nullptr ? *type : rtrace::tracer::g_shmmap, "munmap", key,
                          __builtin_return_address(0), args, 1);
  const int result = g_real.munmap(address, length);
  if (result == 0) {
    release.commit();
    rtrace::tracer::g_mappings.erase(key);
  }
  return result;
}

RTRACE_EXPORT int close(int fd) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_close, fd));
  }
  if (!shmposix_tracing_now()) {
    return g_real.close(fd);
  }
  ShmposixGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const auto key = static_cast<std::uint64_t>(fd);
  const rtrace::tracer::Descriptor* descriptor = rtrace::tracer::g_descriptors.find(key);
  if (descriptor == nullptr || !descriptor->shared_memory) {
    const int result = g_real.close(fd);
    if (result == 0) {
      rtrace::tracer::g_descriptors.erase(key);  // a file's: not recorded, only forgotten
    }
    return result;
  }
  // The release goes first: the next open may get this number at once.
  ReleaseRecorder release(rtrace::tracer::g_pshmfd, "close", key, __builtin_return_address(0));
  const int result = g_real.close(fd);
  if (result == 0) {
    release.commit();
    rtrace::tracer::g_descriptors.erase(key);
  }
  return result;
}
}

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h), so that the
// resource type ids follow the order of -e.
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_start.register_in_order();
}

namespace {

// Usually a no-op: the module started at the first call it interposes.
__attribute__((constructor)) void shmposix_module_init() {
  {
    rtrace::tracer::GuardScope guard;  // pthread_atfork may allocate
    rtrace::tracer::keep_lock_across_fork<rtrace::tracer::g_lock>();
  }
  rtrace::tracer::g_start.finish_registration();
}

}  // namespace
