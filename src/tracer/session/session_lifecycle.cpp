// Starting and stopping a session: the connection, the header every trace begins with, and the
// end of a trace (the last records, heap statistics, the modules' attachments, REND).
#include <time.h>
#include <unistd.h>

#include "tracer/api/tracer_api.h"
#include "tracer/core/clock.h"
#include "tracer/core/record_merge.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/compact_transcoder.h"
#include "tracer/output/live_blocks.h"
#include "tracer/output/packet_encoder.h"
#include "tracer/output/session_packets.h"
#include "tracer/output/trace_compressor.h"
#include "tracer/output/trace_output.h"
#include "tracer/session/control_thread.h"
#include "tracer/session/leak_check.h"
#include "tracer/session/maps_reader.h"
#include "tracer/session/session_state.h"
#include "tracer/session/stop_hooks.h"
#include "tracer/session/thread_stop.h"
#include "tracer/session/trace_registry.h"
#include "tracer/session/trace_session.h"

namespace rtrace::tracer {
namespace {

constexpr char kCmdline[] = "/proc/self/cmdline";

bool g_resume_after_exec = false;

void sleep_microseconds(long microseconds) {
  timespec pause{0, microseconds * 1000};
  ::nanosleep(&pause, nullptr);
}

bool open_connection() {
  g_session.pid = ::getpid();
  return output_open(g_session.options, g_session.socket_path, g_session.pid);
}

void encode_header(PacketEncoder& encoder) {
  encoder.handshake();
  encode_process_info(encoder, g_session.pid, g_session.options.depth, kCmdline);
  if (g_session.options.extensions) {
    encode_command_line(encoder, g_session.pid, kCmdline);
  }
  encode_registry(encoder);
  encode_executable_mappings(encoder);
}

void write_header(HeaderWrite when) {
  static char header[kMaxMapsPayload + kMaxCommandLinePacket];
  PacketEncoder encoder(header, sizeof header);
  encode_header(encoder);
  if (!encoder.overflowed()) {
    output_append(header, encoder.size());
    if (when == HeaderWrite::Now) {
      flush_output();
    }
  }
}

// Waits (up to `patience_ms`) until every call that took a ticket below `end` has published.
void wait_for_calls_in_progress(std::uint64_t end, long patience_ms) {
  const std::uint64_t deadline =
      monotonic_nanoseconds() + static_cast<std::uint64_t>(patience_ms) * 1000000;
  while (safe_bound(current_ring()) < end && monotonic_nanoseconds() < deadline) {
    sleep_microseconds(50);
  }
}

// Drain lock held: what comes after the last records. Heap statistics (HINF) only when the
// session ends outside a signal handler (exit, toggle off): mallinfo2 takes the arena locks an
// interrupted malloc may hold. The modules' stop hooks add their files (stop_hooks.h) before
// REND; not after a crash, so that the crash path touches nothing more of a damaged process.
void write_trace_end(const SessionEnd& ending) {
  if (ending.reason == sprtrace::kEndExit || ending.reason == sprtrace::kEndToggleOff) {
    char packet[128];
    PacketEncoder encoder(packet, sizeof packet);
    encode_heap_info(encoder, g_session.heap_bottom);
    output_append(packet, encoder.size());
  }
  // Not after a crash (touch nothing more of a damaged process), nor when the trace's file
  // system is full (the modules' files would not fit either).
  if (ending.reason != sprtrace::kEndSignal && ending.reason != sprtrace::kEndNoSpace) {
    run_stop_hooks(g_session.options.attachment_directory());
  }
  if (ending.note != nullptr && g_session.options.compact) {
    compact_note(ending.note);
  }
  if (g_session.options.extensions) {
    char packet[sprtrace::kPacketHeaderSize + sprtrace::kTraceEndSize];
    PacketEncoder encoder(packet, sizeof packet);
    encode_trace_end(encoder, g_session.pid, ending, "/proc/self/status");
    output_append(packet, encoder.size());
  }
}

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

void start_session(HeaderWrite header) {
  const State state = g_session.state.load();
  if ((state != State::Idle && state != State::Pending) || !drain_lock(-1)) {
    return;
  }
  if (open_connection()) {
    live_blocks_enable(g_session.options.compact && g_session.options.leak_check);
    write_header(header);
    g_session.floor = next_ticket();
    if (output_is_open()) {
      g_session.state.store(State::Tracing);
      __atomic_store_n(&rtrace_tracing, 1, __ATOMIC_RELEASE);
      // The control thread may be in its idle sleep (1 s): from now on it must drain every
      // 10 ms, which bounds what a SIGKILL can lose. Without one (tracing was off since the
      // start) it is started at the next recorded call (start_if_pending).
      if (control_thread_running()) {
        wake_control_thread();
      } else {
        want_control_thread();
      }
    }
  }
  if (g_session.state.load() == State::Pending) {
    // No connection to be had: stop recording rather than fill the rings for nothing.
    __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_RELEASE);
    g_session.state.store(State::Idle);
  }
  drain_unlock();
}

void start_if_pending() {
  if (g_session.state.load(std::memory_order_relaxed) == State::Pending) {
    start_session();
  }
  start_control_thread_if_wanted();
}

void stop_session(const SessionEnd& ending, long patience_ms, State next) {
  const State state = g_session.state.load();
  if (state == State::Pending) {
    __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
    g_session.state.store(next);
    return;
  }
  if (state != State::Tracing) {
    if (next == State::Finished) {
      g_session.state.store(State::Finished);
    }
    return;
  }
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
  const std::uint64_t end = next_ticket();
  wait_for_calls_in_progress(end, patience_ms);
  if (!drain_lock(patience_ms)) {
    g_session.state.store(next);
    return;
  }
  const std::uint64_t bound = safe_bound(current_ring());
  drain_locked(bound < end ? bound : end);
  if (ending.reason == sprtrace::kEndExit || ending.reason == sprtrace::kEndToggleOff) {
    leak_check_write(static_cast<std::uint32_t>(g_session.pid), !tracer_thread(::gettid()));
  }
  write_trace_end(ending);
  flush_output();
  output_close();
  g_session.state.store(next);
  drain_unlock();
}

void end_for_lack_of_space() {
  __atomic_store_n(&rtrace_tracing, 0, __ATOMIC_SEQ_CST);
  write_trace_end({.reason = sprtrace::kEndNoSpace});
  output_flush_now();
  output_close();
  g_session.state.store(State::Finished);
}

// ---- public (trace_session.h) ------------------------------------------------------------------

void session_request_toggle() {
  const State state = g_session.state.load();
  if (state == State::Finished) {
    return;
  }
  if (state == State::Idle && !control_thread_running()) {
    // Off since the start: no control thread yet, and a signal handler cannot start one
    // (pthread_create allocates). Connecting and writing are async-signal-safe; loading zstd is
    // not: a header to compress stays buffered until the control thread, started at the next
    // recorded call, has loaded it.
    const bool compress = g_session.options.compact && g_session.options.compress_level > 0;
    start_session(compress && !compressor_ready() ? HeaderWrite::Later : HeaderWrite::Now);
    return;
  }
  request_toggle();  // without a control thread yet, the one the next call starts carries it out
}

void session_finish(FinishReason reason, int signal_number, const char* note) {
  if (::getpid() != g_session.pid) {
    // A vfork child (sharing our memory) or a child we do not trace: the session is not its own.
    return;
  }
  if (reason == FinishReason::Exec) {
    const State state = g_session.state.load();
    g_resume_after_exec = state == State::Tracing || state == State::Pending;
    if (note != nullptr && state == State::Pending) {
      start_session();  // a followed child that made no call yet: its trace holds the note
    }
  }
  if (reason == FinishReason::Exit && g_session.options.compact &&
      g_session.options.compress_level > 0) {
    // A session started by another library's constructor can leave ours running nested in its
    // bootstrap, where loading zstd is not safe (and no control thread is started): the
    // destructor is the last safe place, and what is still buffered gets compressed.
    compressor_load();
  }
  const State next = reason == FinishReason::Exec ? State::Idle : State::Finished;
  const long patience_ms = reason == FinishReason::Crash ? 200 : 1000;
  SessionEnd ending = session_end_of(reason, signal_number);
  ending.note = note;
  stop_session(ending, patience_ms, next);
  if (reason != FinishReason::Exec) {
    g_session.state.store(State::Finished);
  }
}

void session_resume_after_exec() {
  if (g_resume_after_exec && g_session.state.load() == State::Idle) {
    g_resume_after_exec = false;
    start_session();
  }
}

int session_descriptors(int (&fds)[2]) {
  return output_descriptors(fds);
}

bool session_owns_descriptor(int fd) {
  return output_owns(fd);
}

void session_move_connection_from(int fd) {
  output_move_from(fd);
}

}  // namespace rtrace::tracer
