#include "tracer/trace_session.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tracer/call_packets.h"
#include "tracer/clock.h"
#include "tracer/decimal.h"
#include "tracer/environment.h"
#include "tracer/event_ring.h"
#include "tracer/libc_memory.h"
#include "tracer/maps_reader.h"
#include "tracer/module_order.h"
#include "tracer/packet_encoder.h"
#include "tracer/proc_self.h"
#include "tracer/process_hooks.h"
#include "tracer/record_merge.h"
#include "tracer/stop_hooks.h"
#include "tracer/thread_rings.h"
#include "tracer/trace_compressor.h"
#include "tracer/trace_output.h"
#include "tracer/trace_registry.h"
#include "tracer/unwinder.h"

namespace rtrace::tracer {
namespace {

using sprtrace::PacketType;

constexpr std::size_t kMaxMapsPayload = std::size_t{256} * 1024;
// The command line kept for RCMD, and the most its packet can take: an argument of n bytes (its
// NUL included) becomes a string of at most n + 4 bytes, at most 4n (an empty argument: 4 for 1).
constexpr std::size_t kCommandLineBytes = std::size_t{32} * 1024;
constexpr std::size_t kMaxCommandLinePacket = 8 + 3 * 4 + 4 * kCommandLineBytes;

// Pending: a followed child records from its first call, but connects (and so leaves a trace)
// only when it has something to record; a child that only execs leaves no empty trace.
enum class State : int { Idle, Pending, Tracing, Finished };

// Everything lives in static storage: constructed before any code of ours runs, never destroyed
// (other libraries' destructors may still call free after ours ran).
TracerOptions g_options;
char g_socket_path[sizeof(sockaddr_un::sun_path)] = {};
std::uint32_t g_expected_modules = 0;
std::atomic<std::uint32_t> g_ready_modules{0};

std::uint64_t g_floor = 0;  // drain lock: records below it belong to an earlier session

std::atomic<State> g_state{State::Idle};
pid_t g_pid = 0;
std::uintptr_t g_heap_bottom = 0;

std::atomic<int> g_wake{0};
std::atomic<int> g_toggles{0};
std::atomic<bool> g_control_running{false};

void futex_wait(std::atomic<int>& word, int expected, long timeout_ms) {
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
  ::syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, expected,
            timeout_ms < 0 ? nullptr : &timeout, nullptr, 0);
}

void wake_control_thread() {
  g_wake.store(1, std::memory_order_release);
  ::syscall(SYS_futex, reinterpret_cast<int*>(&g_wake), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

void sleep_microseconds(long microseconds) {
  timespec pause{0, microseconds * 1000};
  ::nanosleep(&pause, nullptr);
}

void connection_lost() {
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_RELAXED);
  g_state.store(State::Finished);
}

// Writes what is pending, stopping the session if the recorder went away.
void flush_output() {
  if (!output_flush() && g_state.load() == State::Tracing) {
    connection_lost();
  }
}

// Drain lock held: merges the records below `bound` into the trace.
void drain_locked(std::uint64_t bound) {
  const bool emit = g_state.load() == State::Tracing || output_is_open();
  if (!merge_records(bound, g_floor, emit) && g_state.load() == State::Tracing) {
    connection_lost();
  }
}

// Drains now unless another thread is at it; for the program's own threads (a full ring,
// unbuffered mode, a new thread). Signals stay blocked meanwhile: a handler that ends the process
// (_exit, a crash) must find the drain lock free to write everything out, never a half-done
// write of its own thread.
bool drain_if_free() {
  sigset_t all;
  sigset_t previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &previous);
  const bool locked = drain_try_lock();
  if (locked) {
    drain_locked(safe_bound(nullptr));
    flush_output();
    drain_unlock();
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return locked;
}

// ---- session start and stop -----------------------------------------------------------------

bool open_connection() {
  g_pid = ::getpid();
  return output_open(g_options, g_socket_path, g_pid);
}

// argv[0] from /proc/self/cmdline.
void read_process_name(char* name, std::size_t capacity) {
  name[0] = '\0';
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return;
  }
  const ssize_t got = ::read(fd, name, capacity - 1);
  ::syscall(SYS_close, fd);
  name[got > 0 ? got : 0] = '\0';
}

// RCMD (rtrace's extension, protocol.h): the whole argv, which PINF cannot hold. Its presence
// also tells readers that this trace ends with REND.
void encode_command_line(PacketEncoder& encoder) {
  static char arguments[kCommandLineBytes];
  bool cut = false;
  const std::size_t size = read_arguments("/proc/self/cmdline", arguments, sizeof arguments, cut);
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < size; ++i) {
    count += arguments[i] == '\0' ? 1 : 0;
  }
  encoder.begin_packet(PacketType::CommandLine);
  encoder.u32(static_cast<std::uint32_t>(g_pid));
  encoder.u32(cut ? sprtrace::kCommandLineCut : 0);
  encoder.u32(count);
  for (std::size_t at = 0; at < size;) {
    const std::size_t length = std::strlen(arguments + at);
    encoder.string(arguments + at, length);
    at += length + 1;
  }
  encoder.end_packet();
}

void encode_header(PacketEncoder& encoder) {
  encoder.handshake();

  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  char name[PATH_MAX];
  read_process_name(name, sizeof name);
  encoder.begin_packet(PacketType::ProcessInfo);
  encoder.u32(static_cast<std::uint32_t>(g_pid));
  encoder.u32(static_cast<std::uint32_t>(now.tv_sec));
  encoder.u32(static_cast<std::uint32_t>(now.tv_nsec / 1000));
  encoder.u32(g_options.depth);
  encoder.string(name);
  encoder.end_packet();
  if (g_options.extensions) {
    encode_command_line(encoder);
  }

  encode_registry(encoder);
  encode_executable_mappings(encoder);
}

void start_session() {
  const State state = g_state.load();
  if ((state != State::Idle && state != State::Pending) || !drain_lock(-1)) {
    return;
  }
  if (open_connection()) {
    static char header[kMaxMapsPayload + kMaxCommandLinePacket];
    PacketEncoder encoder(header, sizeof header);
    encode_header(encoder);
    if (!encoder.overflowed()) {
      output_append(header, encoder.size());
      flush_output();
    }
    g_floor = next_ticket();
    if (output_is_open()) {
      g_state.store(State::Tracing);
      __atomic_store_n(&rtrace_tracing, 1, __ATOMIC_RELEASE);
      // The control thread may be in its idle sleep (1 s): from now on it must drain every
      // 10 ms, which bounds what a SIGKILL can lose.
      wake_control_thread();
    }
  }
  if (g_state.load() == State::Pending) {
    // No connection to be had: stop recording rather than fill the rings for nothing.
    __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_RELEASE);
    g_state.store(State::Idle);
  }
  drain_unlock();
}

// Starts the session of a followed child at its first record.
void start_if_pending() {
  if (g_state.load(std::memory_order_relaxed) == State::Pending) {
    start_session();
  }
}

void encode_heap_info(PacketEncoder& encoder) {
  const struct mallinfo2 info = ::mallinfo2();
  const auto dword = [](std::size_t value) {
    return value > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(value);
  };
  encoder.begin_packet(PacketType::HeapInfo);
  encoder.pointer(g_heap_bottom);
  encoder.pointer(reinterpret_cast<std::uintptr_t>(::sbrk(0)));
  encoder.u32(dword(info.arena));
  encoder.u32(dword(info.ordblks));
  encoder.u32(dword(info.smblks));
  encoder.u32(dword(info.hblks));
  encoder.u32(dword(info.hblkhd));
  encoder.u32(dword(info.usmblks));
  encoder.u32(dword(info.fsmblks));
  encoder.u32(dword(info.uordblks));
  encoder.u32(dword(info.fordblks));
  encoder.u32(dword(info.keepcost));
  encoder.end_packet();
}

// Why a session stops, for its REND packet.
struct SessionEnd {
  std::uint32_t reason = sprtrace::kEndExit;
  std::uint32_t signal = 0;
};

// REND (rtrace's extension, protocol.h): how the trace ended and the resident set size. Safe in
// a signal handler: raw reads of /proc into fixed buffers (proc_self.h).
void encode_trace_end(PacketEncoder& encoder, const SessionEnd& end) {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const ResidentSet resident = read_resident_set("/proc/self/status");
  encoder.begin_packet(PacketType::TraceEnd);
  encoder.u32(static_cast<std::uint32_t>(g_pid));
  encoder.u32(end.reason);
  encoder.u32(end.signal);
  encoder.u32(static_cast<std::uint32_t>(now.tv_sec));
  encoder.u32(static_cast<std::uint32_t>(now.tv_nsec / 1000));
  encoder.u64(resident.peak_bytes);
  encoder.u64(resident.current_bytes);
  encoder.end_packet();
}

// Stops recording, waits (a little) for calls in progress, writes everything out, ends the trace
// with REND and closes. Heap statistics (HINF) only when the session ends outside a signal
// handler (exit, toggle off): mallinfo2 takes the arena locks an interrupted malloc may hold.
// The modules' stop hooks add their files (stop_hooks.h), before REND; not after a crash.
void stop_session(const SessionEnd& ending, long patience_ms, State next) {
  const bool heap_info =
      ending.reason == sprtrace::kEndExit || ending.reason == sprtrace::kEndToggleOff;
  const State state = g_state.load();
  if (state == State::Pending) {
    __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
    g_state.store(next);
    return;
  }
  if (state != State::Tracing) {
    if (next == State::Finished) {
      g_state.store(State::Finished);
    }
    return;
  }
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
  const std::uint64_t end = next_ticket();
  for (long waited_us = 0; safe_bound(current_ring()) < end && waited_us / 1000 < patience_ms;
       waited_us += 50) {
    sleep_microseconds(50);
  }
  if (!drain_lock(patience_ms)) {
    g_state.store(next);
    return;
  }
  const std::uint64_t bound = safe_bound(current_ring());
  drain_locked(bound < end ? bound : end);
  if (heap_info) {
    char packet[128];
    PacketEncoder encoder(packet, sizeof packet);
    encode_heap_info(encoder);
    output_append(packet, encoder.size());
  }
  if (ending.reason != sprtrace::kEndSignal) {
    run_stop_hooks(g_options.attachment_directory());
  }
  if (g_options.extensions) {
    char end_packet[sprtrace::kPacketHeaderSize + sprtrace::kTraceEndSize];
    PacketEncoder end_encoder(end_packet, sizeof end_packet);
    encode_trace_end(end_encoder, ending);
    output_append(end_packet, end_encoder.size());
  }
  flush_output();
  output_close();
  g_state.store(next);
  drain_unlock();
}

void drain_pass() {
  if (!drain_try_lock()) {
    return;
  }
  if (g_state.load() == State::Tracing) {
    drain_locked(safe_bound(nullptr));
    flush_output();
  }
  drain_unlock();
}

// The control thread's name says whether tracing is on ("rtrace:on") or off ("rtrace:off"), so
// that `rtrace record -t` can see from /proc/<pid>/task/*/comm that a toggle took effect (or did
// not: the program replaced our handler). A thread names itself without locks or allocation.
// `shown` is what the name says now (-1: nothing yet).
void publish_tracing_state(int& shown) {
  const State state = g_state.load();
  const int on = state == State::Tracing || state == State::Pending ? 1 : 0;
  if (on != shown) {
    ::prctl(PR_SET_NAME, on != 0 ? "rtrace:on" : "rtrace:off", 0, 0, 0);
    shown = on;
  }
}

void* control_thread_main(void*) {
  rtrace_guard = 1;  // nothing this thread does is the program's doing
  if (g_options.compact && g_options.compress_level > 0) {
    // Normally done by librtrace-main.so's constructor already. Never where the session starts:
    // that may be inside an interposed call, where the loader must not be entered.
    compressor_load();
  }
  std::uint64_t last_sequence = 0;
  bool busy = false;
  int shown_state = -1;
  for (;;) {
    publish_tracing_state(shown_state);
    const bool tracing = g_state.load() == State::Tracing;
    // While calls come in: tick every millisecond (timestamps) and drain often; otherwise
    // sleep longer and let the callers read the clock themselves.
    futex_wait(g_wake, 0, !tracing ? 1000 : busy ? 1 : 10);
    g_wake.store(0, std::memory_order_relaxed);
    for (int toggles = g_toggles.exchange(0); toggles > 0; --toggles) {
      if (g_state.load() == State::Tracing) {
        stop_session({.reason = sprtrace::kEndToggleOff}, 1000, State::Idle);
      } else {
        start_session();
      }
    }
    publish_tracing_state(shown_state);
    if (g_state.load() == State::Finished) {
      break;
    }
    const std::uint64_t sequence = next_ticket();
    busy = g_state.load() == State::Tracing && g_options.timestamps && sequence != last_sequence;
    last_sequence = sequence;
    recalibrate_clock();
    publish_tick(busy);
    drain_pass();
  }
  publish_tick(false);
  g_control_running.store(false);
  return nullptr;
}

void start_control_thread() {
  sigset_t all;
  sigset_t previous;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_attr_t attributes;
  ::pthread_attr_init(&attributes);
  ::pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  ::pthread_attr_setstacksize(&attributes, std::size_t{256} * 1024);
  pthread_t thread;
  g_control_running.store(true);
  if (::pthread_create(&thread, &attributes, control_thread_main, nullptr) != 0) {
    g_control_running.store(false);
  }
  ::pthread_attr_destroy(&attributes);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// Space for a record in this thread's ring. When it is full: wake the control thread and sleep
// until a drain made room; drain here when the control thread does not get to it (it may not
// be scheduled on a busy machine).
char* reserve(EventRing& ring, std::size_t max_payload) {
  for (int attempt = 0;; ++attempt) {
    const int merges = merges_done();
    if (char* space = ring.try_reserve(max_payload)) {
      return space;
    }
    if (max_payload > ring.capacity() / 2 || g_state.load() != State::Tracing) {
      return nullptr;
    }
    wake_control_thread();
    if (attempt > 0 && drain_if_free()) {
      continue;
    }
    wait_for_merge(merges, 2);
  }
}

// Gives back the ticket of a record just published (or settled); in unbuffered mode writes it out
// now.
void after_publish(EventRing& ring) {
  release_ticket(ring);
  if (!g_options.buffered) {
    drain_if_free();
    return;
  }
  // Wake the drainer early, once per filling, so that it writes while we go on.
  if (ring.filling()) {
    if (!ring.wake_sent) {
      ring.wake_sent = true;
      wake_control_thread();
    }
  } else {
    ring.wake_sent = false;
  }
}

// Publishes an encoded record and gives back the ticket; in unbuffered mode writes it out now.
void publish(EventRing& ring, std::uint64_t ticket, std::size_t length) {
  ring.publish(ticket, length);
  after_publish(ring);
}

std::uint32_t timestamp_ms() {
  if (!g_options.timestamps) {
    return 0;
  }
  return monotonic_milliseconds();
}

thread_local std::uint32_t t_context_mask __attribute__((tls_model("initial-exec"))) = 0;
// The call encoded by session_prepare and not yet published.
thread_local bool t_prepared __attribute__((tls_model("initial-exec"))) = false;
thread_local std::size_t t_prepared_length __attribute__((tls_model("initial-exec"))) = 0;

// ---- fork -----------------------------------------------------------------------------------

bool g_fork_locked = false;
bool g_resume_after_exec = false;

void before_fork() {
  // Everything recorded before the fork reaches the parent's trace, and the child's copy of the
  // drain state is consistent.
  g_fork_locked = drain_lock(1000);
  if (g_fork_locked && g_state.load() == State::Tracing) {
    drain_locked(safe_bound(current_ring()));
    flush_output();
  }
}

void after_fork_parent() {
  if (g_fork_locked) {
    drain_unlock();
  }
}

void after_fork_child() {
  // The other threads and the control thread do not exist here; their records stay with the
  // parent, whose trace they belong to.
  reset_rings_after_fork();
  g_pid = ::getpid();
  output_forget_after_fork();  // the parent's connection
  drain_unlock();              // taken by before_fork under the parent's thread id
  g_control_running.store(false);
  g_toggles.store(0);
  g_wake.store(0);
  const bool was_tracing = g_state.load() == State::Tracing;
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
  if (!g_options.follow_forks) {
    g_state.store(State::Finished);
    return;
  }
  g_state.store(State::Idle);
  start_control_thread();
  if (was_tracing) {
    g_state.store(State::Pending);
    __atomic_store_n(&rtrace_tracing, 1, __ATOMIC_RELEASE);
  }
}

// The number of tracing modules besides main that LD_PRELOAD names.
std::uint32_t count_preloaded_modules() {
  const char* preload = environment_value("LD_PRELOAD");
  std::uint32_t count = 0;
  for (const char* p = preload; p != nullptr && *p != '\0';) {
    const char* end = p;
    while (*end != '\0' && *end != ':' && *end != ' ') {
      ++end;
    }
    const char* base = p;
    for (const char* q = p; q < end; ++q) {
      if (*q == '/') {
        base = q + 1;
      }
    }
    const auto length = static_cast<std::size_t>(end - base);
    static constexpr char kPrefix[] = "librtrace-";
    static constexpr char kMain[] = "librtrace-main.so";
    if (length > sizeof kPrefix - 1 && std::memcmp(base, kPrefix, sizeof kPrefix - 1) == 0 &&
        !(length == sizeof kMain - 1 && std::memcmp(base, kMain, length) == 0)) {
      ++count;
    }
    p = *end == '\0' ? end : end + 1;
  }
  return count;
}

// The first process to load the tracer notes its pid in the environment (before the program
// runs, so every child inherits it). A process that finds another pid there is a descendant
// started by fork+exec, posix_spawn or system(): traced only with follow-forks. The traced
// process itself keeps its pid across exec, so its new image is traced.
bool first_traced_process() {
  return claim_root_process(g_pid);
}

void start_when_modules_ready() {
  if (g_options.start && g_ready_modules.load() >= g_expected_modules) {
    start_session();
  }
}

// The process-wide set-up, without the control thread (see session_bootstrap).
bool initialize() {
  resolve_process_functions();
  g_options = parse_options(environment_value("RTRACE_OPTIONS"));
  g_pid = ::getpid();
  if (!first_traced_process() && !g_options.follow_forks) {
    g_state.store(State::Finished);
    return false;
  }
  if (const char* socket_path = environment_value("RTRACE_SOCKET")) {
    const std::size_t length = std::strlen(socket_path);
    if (length < sizeof g_socket_path) {
      std::memcpy(g_socket_path, socket_path, length + 1);
    }
  }
  find_libc_memory();
  g_heap_bottom = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  g_expected_modules = count_preloaded_modules();
  rings_init([] { drain_if_free(); });
  ::pthread_atfork(before_fork, after_fork_parent, after_fork_child);
  init_unwinder();
  init_clock();
  session_register_module("main", 1, 0);
  start_when_modules_ready();
  return true;
}

// 0: not yet, 1: in progress, 2: done.
std::atomic<int> g_bootstrap{0};
bool g_traced = false;

}  // namespace

// ---- public -----------------------------------------------------------------------------------

Bootstrap session_bootstrap() {
  if (g_bootstrap.load(std::memory_order_acquire) != 2) {
    int expected = 0;
    if (!g_bootstrap.compare_exchange_strong(expected, 1)) {
      return Bootstrap::UnderWay;
    }
    g_traced = initialize();
    if (g_traced) {
      // Still "under way": a module starting meanwhile (dlopen allocates) leaves its
      // registration to this.
      register_preloaded_modules();
    }
    g_bootstrap.store(2, std::memory_order_release);
  }
  return g_traced ? Bootstrap::Traced : Bootstrap::NotTraced;
}

void session_start_control_thread() {
  if (g_traced && !g_control_running.load()) {
    start_control_thread();
  }
}

const TracerOptions& session_options() {
  return g_options;
}

std::uint32_t session_register_module(const char* name, std::uint16_t major, std::uint16_t minor) {
  return registry_add_module(name, major, minor);
}

std::uint32_t session_register_resource(const char* type, const char* description,
                                        std::uint32_t flags) {
  return registry_add_resource(type, description, flags);
}

void session_module_ready() {
  g_ready_modules.fetch_add(1);
  start_when_modules_ready();
}

std::uint32_t session_create_context(const char* name) {
  const std::uint32_t id = registry_add_context(name);
  start_if_pending();
  if (id == 0 || __atomic_load_n(&rtrace_tracing, __ATOMIC_ACQUIRE) == 0) {
    return id;  // when tracing starts, the header lists it
  }
  constexpr std::size_t kContextPacketBound = 128;
  EventRing* ring = my_ring();
  char* space = ring == nullptr ? nullptr : reserve(*ring, kContextPacketBound);
  if (space != nullptr) {
    PacketEncoder encoder(space, kContextPacketBound);
    encode_context(encoder, id);
    publish(*ring, take_ticket(*ring), encoder.size());
  }
  return id;
}

bool session_context_known(std::uint32_t id) {
  return registry_context_known(id);
}

bool session_prepare(const RtraceCall& call, const std::uintptr_t* frames,
                     std::uint32_t frame_count) {
  if (!registry_resource_known(call.resource_type)) {
    return false;  // 0: the module registered more types than the protocol can name
  }
  start_if_pending();
  EventRing* ring = my_ring();
  if (ring == nullptr) {
    return false;
  }
  const CallPackets packets(call, frame_count);
  char* space = reserve(*ring, packets.size());
  if (space == nullptr) {
    return false;
  }
  packets.write(space, t_context_mask, timestamp_ms(), frames);
  t_prepared_length = packets.size();
  t_prepared = true;
  return true;
}

namespace {

// The release half of a transient call: a copy of the allocation's CALL packet (at the start of
// `space`) with kind free and size 0 (cheaper than encoding it again: no second timestamp, name
// or context), then its BTRC. Returns the length of everything, 0 when it does not fit.
std::size_t append_release(char* space, std::size_t used, std::size_t bound,
                           const std::uintptr_t* frames, std::uint32_t frame_count) {
  // CALL: [type][size] resource, context, timestamp, kind, name, size, id (8-byte pointer).
  constexpr std::size_t kKindOffset = 8 + 3 * 4;
  constexpr std::size_t kSizeFromEnd = 4 + 8;
  std::uint32_t payload = 0;
  std::memcpy(&payload, space + 4, sizeof payload);
  const std::size_t call_length = 8 + std::size_t{payload};
  if (call_length > used || used + call_length > bound) {
    return 0;
  }
  char* release = space + used;
  libc_copy(release, space, call_length);
  const std::uint32_t kind = sprtrace::kCallFree;
  const std::uint32_t size = 0;
  std::memcpy(release + kKindOffset, &kind, sizeof kind);
  std::memcpy(release + call_length - kSizeFromEnd, &size, sizeof size);
  PacketEncoder backtrace(release + call_length, bound - used - call_length);
  backtrace.begin_packet(PacketType::Backtrace);
  backtrace.u32(frame_count);
  backtrace.pointers(frames, frame_count);
  backtrace.end_packet();
  return backtrace.overflowed() ? 0 : used + call_length + backtrace.size();
}

}  // namespace

// A transient call (rtrace_record_transient): its allocation and the release of the same id,
// encoded together so that they share one reservation, one backtrace and one ticket.
bool session_prepare_transient(const RtraceCall& call, const std::uintptr_t* frames,
                               std::uint32_t frame_count, std::uint32_t release_frame_count) {
  if (!registry_resource_known(call.resource_type)) {
    return false;
  }
  start_if_pending();
  EventRing* ring = my_ring();
  if (ring == nullptr) {
    return false;
  }
  RtraceCall allocation = call;
  allocation.kind = sprtrace::kCallAlloc;
  const CallPackets packets(allocation, frame_count);
  const std::size_t bound = 2 * packets.size();
  char* space = reserve(*ring, bound);
  if (space == nullptr) {
    return false;
  }
  packets.write(space, t_context_mask, timestamp_ms(), frames);
  t_prepared_length = append_release(space, packets.size(), bound, frames, release_frame_count);
  t_prepared = true;
  return true;
}

std::uint64_t session_ticket() {
  return t_prepared ? take_ticket(*current_ring()) : 0;
}

void session_publish(std::uint64_t ticket) {
  if (ticket != 0 && t_prepared) {
    t_prepared = false;
    publish(*current_ring(), ticket, t_prepared_length);
  }
}

void session_cancel(std::uint64_t ticket) {
  t_prepared = false;
  if (ticket != 0 && current_ring() != nullptr) {
    release_ticket(*current_ring());
  }
}

std::uint64_t session_hold(std::uint64_t ticket) {
  if (ticket == 0 || !t_prepared) {
    return 0;
  }
  t_prepared = false;
  EventRing& ring = *current_ring();
  const std::uint64_t position = ring.head.load(std::memory_order_relaxed);
  ring.publish(ticket, t_prepared_length);  // the ticket stays held: nothing after it goes out
  return position + 1;
}

void session_settle(std::uint64_t handle, bool happened) {
  EventRing* ring = current_ring();
  if (handle == 0 || ring == nullptr) {
    return;
  }
  if (!happened) {
    ring->void_record(handle - 1);
  }
  after_publish(*ring);
}

void session_commit_maps() {
  unwinder_modules_changed();
  start_if_pending();
  if (__atomic_load_n(&rtrace_tracing, __ATOMIC_ACQUIRE) == 0) {
    return;
  }
  EventRing* ring = my_ring();
  if (ring == nullptr) {
    return;
  }
  char* space = reserve(*ring, kMaxMapsPayload);
  if (space == nullptr) {
    return;
  }
  PacketEncoder encoder(space, kMaxMapsPayload);
  encode_executable_mappings(encoder);
  // No NLIB: in the original it asked the recorder to rescan /proc/<pid>/maps, which fails for a
  // process that has already exited. We send the maps themselves, so trace files hold exactly
  // what the original's did and never lack a mapping.
  publish(*ring, take_ticket(*ring), encoder.overflowed() ? 0 : encoder.size());
}

void session_request_toggle() {
  if (g_state.load() == State::Finished) {
    return;
  }
  g_toggles.fetch_add(1);
  wake_control_thread();
}

namespace {

SessionEnd session_end_of(FinishReason reason, int signal_number) {
  switch (reason) {
    case FinishReason::Exit:
      break;
    case FinishReason::FastExit:
      return {.reason = sprtrace::kEndFastExit};
    case FinishReason::Exec:
      return {.reason = sprtrace::kEndExec};
    case FinishReason::Crash:
      return {.reason = sprtrace::kEndSignal, .signal = static_cast<std::uint32_t>(signal_number)};
  }
  return {.reason = sprtrace::kEndExit};
}

}  // namespace

void session_finish(FinishReason reason, int signal_number) {
  if (::getpid() != g_pid) {
    // A vfork child (sharing our memory) or a child we do not trace: the session is not its own.
    return;
  }
  if (reason == FinishReason::Exec) {
    const State state = g_state.load();
    g_resume_after_exec = state == State::Tracing || state == State::Pending;
  }
  if (reason == FinishReason::Exit && g_options.compact && g_options.compress_level > 0) {
    // A session started by another library's constructor can leave ours running nested in its
    // bootstrap, where loading zstd is not safe (and no control thread is started): the
    // destructor is the last safe place, and what is still buffered gets compressed.
    compressor_load();
  }
  const State next = reason == FinishReason::Exec ? State::Idle : State::Finished;
  const long patience_ms = reason == FinishReason::Crash ? 200 : 1000;
  // Attachments (the modules' stop hooks) are async-signal-safe, but not written after a crash:
  // the crash path stays as short as it can, touching nothing more of a damaged process.
  stop_session(session_end_of(reason, signal_number), patience_ms, next);
  if (reason != FinishReason::Exec) {
    g_state.store(State::Finished);
  }
}

void session_resume_after_exec() {
  if (g_resume_after_exec && g_state.load() == State::Idle) {
    g_resume_after_exec = false;
    start_session();
  }
}

int session_connection_fd() {
  return output_fd();
}

void session_move_connection_from(int fd) {
  output_move_from(fd);
}

std::uint32_t& context_mask() {
  return t_context_mask;
}

}  // namespace rtrace::tracer
