// file-from-recorder=1, the bytes both sides agree on: the traced process starts its connection
// with kAskForFile (no trace stream starts with it: sp-rtrace's starts with 0xF0, the compact
// format's with 0x89, a zstd frame's with 0x28; a recorder can tell an older tracer's stream
// from the request). The recorder answers with one byte, kFilePassed with the descriptor of the
// file the trace goes to (SCM_RIGHTS), or kNoFile when it could make none (the trace then goes
// through the connection as without the option). With a file, the connection stays open and
// unwritten until the trace ends; the process then sends kTraceClosed before closing it. A
// connection that ends without it broke off (the process was killed).
// A file system that fills up: the recorder keeps a reserve of kOutOfSpaceReserve bytes in the
// trace's folder (an unnamed file); a process whose write fails for lack of space sends
// kOutOfSpace, the recorder frees the reserve and answers kReserveFreed, and the process writes
// what it holds and the trace's end (reason "no space"), stops tracing and runs on.
// Tracer: trace_output.cpp; recorder: trace_file_passing.h.
#pragma once

namespace rtrace::file_from_recorder {

inline constexpr char kAskForFile = '?';
inline constexpr char kFilePassed = 'F';
inline constexpr char kNoFile = 'S';
inline constexpr char kTraceClosed = 'E';
inline constexpr char kOutOfSpace = 'N';
inline constexpr char kReserveFreed = 'R';
// More than the tracer may hold when a write fails (its 1 MiB buffer, a zstd block, the end).
inline constexpr long kOutOfSpaceReserve = 2L << 20;

}  // namespace rtrace::file_from_recorder
