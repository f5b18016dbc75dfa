// librtrace-shmsysv.so: System V shared memory, as the original shmsysv module records it.
//
// Resource types, in this order: `segment` (refcount: a shmget(IPC_CREAT) of a key that exists
// returns the live id again, one more reference), `address` (the attachments) and `control`.
//
//  * shmget with IPC_CREAT: allocation `shmget<segment>(size) = id`.
//  * shmat: allocation `shmat<address>(segment size) = address`, arguments `shmid` (hex) and
//    `cpid` (the creator's pid; both empty and size 1 when the segment cannot be queried).
//  * shmdt: release `shmdt<address>(address)`; when that was the last attachment of a segment
//    this process created and removed, the segment goes too: release `shmdt<segment>(id)`.
//  * shmctl(IPC_RMID): release `shmctl<control>(id)` with argument `cmd = IPC_RMID` (whatever the
//    outcome, as the original), then, for a segment this process created and nobody is attached
//    to, release `shmctl<segment>(id)`. A segment removed while attached lives until its last
//    detach (or the process exit, which the kernel does untraced: the segment shows as a leak).
//
// The attachment table (address -> segment) and the kernel's attachment counts are read and
// changed under one lock, so that threads attaching and detaching at once give exact records.
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "tracer/api/module_lock.h"
#include "tracer/api/module_sdk.h"
#include "tracer/core/decimal.h"
#include "tracer/core/fixed_table.h"

namespace rtrace::tracer {
namespace {

#define RTRACE_SHMSYSV_REAL_FUNCTIONS(FUNCTION, SYMBOL) \
  FUNCTION(shmget)                                      \
  FUNCTION(shmat)                                       \
  FUNCTION(shmdt)                                       \
  FUNCTION(shmctl)
RTRACE_REAL_FUNCTIONS(RealShmFunctions, RTRACE_SHMSYSV_REAL_FUNCTIONS);

constinit RealShmFunctions g_real;
std::uint32_t g_segment = 1;
std::uint32_t g_address = 2;
std::uint32_t g_control = 3;

ModuleLock g_lock;
// Address -> id of the segment attached there, for the segments this process created (the
// only ones whose end it reports).
FixedTable<int, 4096> g_attachments;

bool resolve_real_functions() {
  g_real.find_all();
  return g_real.shmget != nullptr && g_real.shmat != nullptr && g_real.shmdt != nullptr &&
         g_real.shmctl != nullptr;
}

void register_shmsysv_module() {
  rtrace_register_module("shmsysv", 1, 0);
  g_segment = rtrace_register_resource("segment", "shared memory segment", kRefcountResource);
  g_address = rtrace_register_resource("address", "shared memory attachments", 0);
  g_control = rtrace_register_resource("control", "shared memory segment control operation", 0);
  rtrace_module_ready();
}

struct ShmsysvModule;
constinit ModuleStart<ShmsysvModule> g_start{resolve_real_functions, register_shmsysv_module};

// The module's own guard (module_sdk.h): held while a real function runs, so that the module's
// wrappers pass on what it calls; the other modules still record it.
using ShmsysvGuard = OwnGuard<ShmsysvModule>;
inline bool shmsysv_tracing_now() {
  return tracing_now<ShmsysvModule>();
}

// What the kernel says about segment `id` (false when it cannot be queried).
bool query_segment(int id, shmid_ds& status) {
  return g_real.shmctl(id, IPC_STAT, &status) == 0;
}

// The attachment count of segment `id` when this process created it, otherwise -1.
long own_segment_attachments(int id) {
  shmid_ds status{};
  if (query_segment(id, status) && status.shm_cpid == getpid()) {
    return static_cast<long>(status.shm_nattch);
  }
  return -1;
}

// The attachment count of segment `id` when it is marked for removal, otherwise -1.
long removed_segment_attachments(int id) {
  shmid_ds status{};
  if (query_segment(id, status) && (status.shm_perm.mode & SHM_DEST) != 0) {
    return static_cast<long>(status.shm_nattch);
  }
  return -1;
}

std::uint64_t segment_id(int id) {
  return static_cast<std::uint64_t>(static_cast<unsigned int>(id));
}

std::uint64_t address_id(const void* address) {
  return reinterpret_cast<std::uintptr_t>(address);
}

// The attachment just made at `address`: its record, with the segment's size and creator.
void record_attachment(int id, void* address, const void* return_address) {
  char shmid_text[24];
  *write_hex(shmid_text, static_cast<unsigned int>(id)) = '\0';
  char cpid_text[24] = "";
  std::uint64_t size = 1;
  shmid_ds status{};
  if (query_segment(id, status)) {
    *write_decimal(cpid_text, static_cast<std::uint64_t>(status.shm_cpid)) = '\0';
    size = status.shm_segsz;
    if (status.shm_cpid == getpid()) {
      g_attachments.put(address_id(address), id);
    }
  }
  const RtraceArg args[] = {{"shmid", shmid_text}, {"cpid", cpid_text}};
  record_allocation(g_address, "shmat", size, address_id(address), return_address, args, 2);
}

}  // namespace
}  // namespace rtrace::tracer

using rtrace::tracer::g_real;
using rtrace::tracer::g_start;
using rtrace::tracer::LockScope;
using rtrace::tracer::ReleaseRecorder;
using rtrace::tracer::shmsysv_tracing_now;
using rtrace::tracer::ShmsysvGuard;

extern "C" {

RTRACE_EXPORT int shmget(key_t key, std::size_t size, int flags) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_shmget, key, size, flags));
  }
  if (!shmsysv_tracing_now()) {
    return g_real.shmget(key, size, flags);
  }
  ShmsysvGuard guard;
  const int id = g_real.shmget(key, size, flags);
  if (id != -1 && (flags & IPC_CREAT) != 0) {
    rtrace::tracer::record_allocation(rtrace::tracer::g_segment, "shmget", size,
                                      rtrace::tracer::segment_id(id), __builtin_return_address(0));
  }
  return id;
}

RTRACE_EXPORT void* shmat(int id, const void* wanted, int flags) {
  if (!g_start.ready()) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the system call returns the address as a number
    return reinterpret_cast<void*>(::syscall(SYS_shmat, id, wanted, flags));
  }
  if (!shmsysv_tracing_now()) {
    return g_real.shmat(id, wanted, flags);
  }
  ShmsysvGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  void* address = g_real.shmat(id, wanted, flags);
  if (reinterpret_cast<std::intptr_t>(address) != -1) {  // shmat's (void*)-1: failed
    rtrace::tracer::record_attachment(id, address, __builtin_return_address(0));
  }
  return address;
}

RTRACE_EXPORT int shmdt(const void* address) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_shmdt, address));
  }
  if (!shmsysv_tracing_now()) {
    return g_real.shmdt(address);
  }
  ShmsysvGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const std::uint64_t key = rtrace::tracer::address_id(address);
  int segment = 0;
  long attachments = -1;
  if (const int* found = rtrace::tracer::g_attachments.find(key); found != nullptr) {
    segment = *found;
    attachments = rtrace::tracer::removed_segment_attachments(segment);
    rtrace::tracer::g_attachments.erase(key);
  }
  const void* caller = __builtin_return_address(0);
  ReleaseRecorder detach(rtrace::tracer::g_address, "shmdt", key, caller);
  const int result = g_real.shmdt(address);
  if (result != 0) {
    detach.cancel();
    return result;
  }
  detach.commit();
  if (attachments == 1) {
    // The segment was removed and this was its last attachment: the kernel destroyed it.
    ReleaseRecorder destroyed(rtrace::tracer::g_segment, "shmdt",
                              rtrace::tracer::segment_id(segment), caller);
    destroyed.commit();
  }
  return result;
}

RTRACE_EXPORT int shmctl(int id, int command, shmid_ds* buffer) {
  if (!g_start.ready()) {
    return static_cast<int>(::syscall(SYS_shmctl, id, command, buffer));
  }
  if (command != IPC_RMID || !shmsysv_tracing_now()) {
    return g_real.shmctl(id, command, buffer);
  }
  ShmsysvGuard guard;
  LockScope lock(rtrace::tracer::g_lock);
  const long attachments = rtrace::tracer::own_segment_attachments(id);
  const void* caller = __builtin_return_address(0);
  const RtraceArg args[] = {{"cmd", "IPC_RMID"}};
  ReleaseRecorder control(rtrace::tracer::g_control, "shmctl", rtrace::tracer::segment_id(id),
                          caller, args, 1);
  control.commit();
  if (attachments != 0) {
    return g_real.shmctl(id, command, buffer);
  }
  // Nobody is attached: the segment is destroyed now.
  ReleaseRecorder destroyed(rtrace::tracer::g_segment, "shmctl", rtrace::tracer::segment_id(id),
                            caller);
  const int result = g_real.shmctl(id, command, buffer);
  if (result == 0) {
    destroyed.commit();
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

// Usually a no-op: the module started at the first shm call (or at none at all).
__attribute__((constructor)) void shmsysv_module_init() {
  {
    rtrace::tracer::GuardScope guard;  // pthread_atfork may allocate
    rtrace::tracer::keep_lock_across_fork<rtrace::tracer::g_lock>();
  }
  rtrace::tracer::g_start.finish_registration();
}

}  // namespace
