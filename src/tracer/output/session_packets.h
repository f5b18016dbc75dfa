// The packets a session writes itself, around the recorded calls: PINF and RCMD in the header,
// HINF and REND at the end. Encoding only (the session decides when); never allocates.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "tracer/output/packet_encoder.h"

namespace rtrace::tracer {

// The command line kept for RCMD, and the most its packet can take: an argument of n bytes (its
// NUL included) becomes a string of at most n + 4 bytes, at most 4n (an empty argument: 4 for 1).
inline constexpr std::size_t kCommandLineBytes = std::size_t{32} * 1024;
inline constexpr std::size_t kMaxCommandLinePacket = 8 + 3 * 4 + 4 * kCommandLineBytes;

// PINF: the pid, the wall-clock time now, the backtrace depth and argv[0] (from `cmdline`, a
// /proc/<pid>/cmdline file).
void encode_process_info(PacketEncoder& encoder, pid_t pid, std::uint32_t depth,
                         const char* cmdline);

// RCMD (rtrace's extension, protocol.h): the whole argv from `cmdline`, which PINF cannot hold.
// Its presence also tells readers that this trace ends with REND.
void encode_command_line(PacketEncoder& encoder, pid_t pid, const char* cmdline);

// HINF: mallinfo2 (values beyond 32 bits saturate) and the heap's bounds. Not in a signal
// handler: mallinfo2 takes the arena locks an interrupted malloc may hold.
void encode_heap_info(PacketEncoder& encoder, std::uintptr_t heap_bottom);

// Why a session stops, for its REND packet.
struct SessionEnd {
  std::uint32_t reason = sprtrace::kEndExit;
  std::uint32_t signal = 0;
  // A remark for the trace's readers, written before the end (compact traces: a NOTE record).
  const char* note = nullptr;
};

// REND (rtrace's extension, protocol.h): how the trace ended and the resident set size (from
// `status`, a /proc/<pid>/status file). Safe in a signal handler: raw reads of /proc into fixed
// buffers (proc_self.h).
void encode_trace_end(PacketEncoder& encoder, pid_t pid, const SessionEnd& end, const char* status);

}  // namespace rtrace::tracer
