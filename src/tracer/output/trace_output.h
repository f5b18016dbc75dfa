// Where the trace goes: a file of its own in managed mode (<dir>/<pid>-<n>.rtrace, never
// overwriting), the file the recorder made and passed through its socket (file-from-recorder=1:
// the bytes are copied once, from our buffers to the file), or the recorder's socket itself (the
// recorder transforms the stream). Buffered writes for the session's own
// packets, and writes straight from ring memory (no copy) for the merged records.
// Only the holder of the drain lock calls these.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "protocol/compact_encoder.h"
#include "tracer/core/options.h"

namespace rtrace::tracer {

// Opens a new trace; moves the descriptor above the numbers programs use.
bool output_open(const TracerOptions& options, const char* socket_path, pid_t pid);
bool output_is_open();
// Whether a write of the trace's file failed for lack of space. The output stays open when the
// recorder freed room for the trace's end (the session then writes it and closes the trace).
bool output_out_of_space();
// The descriptors the trace holds (0, 1 or 2: the output, and the recorder's connection when the
// output is a file it passed), in ascending order. The program must not close them.
int output_descriptors(int (&fds)[2]);
bool output_owns(int fd);
// Writes what is buffered and closes the trace (in order: the recorder is told so).
void output_close();
// In a forked child: drops the parent's connection and buffers without writing anything.
void output_forget_after_fork();
// The program wants descriptor `fd`: if it is ours, move to another number.
void output_move_from(int fd);

// Whether output_add_piece copies (transcodes) what it is given at once, so that the memory may be
// reused as soon as it returns (the compact format); otherwise it must stay until output_flush.
bool output_copies_records();
void output_append(const char* data, std::size_t size);
// Queues `size` bytes at `data` to be written as they are; they must stay put until the next
// output_flush. Returns false when the queue is full (flush first).
bool output_add_piece(const char* data, std::size_t size);
// The compact format only (output_copies_records): one call given by its fields, transcoded at
// once (compact_transcoder.h).
void output_add_call(const compact::CallFields& call);
// The compact format only: an allocation and its release at once (compact_transient).
void output_add_transient(const compact::CallFields& allocation, bool release_has_stack);
// The compact format only: the next calls are thread `tid`'s, from ring `slot`.
void output_thread(std::uint32_t slot, std::uint64_t tid);
// Writes everything queued; false when the connection broke (it is then closed). Compact bytes
// may wait for a fuller batch (at most ~10 ms); output_flush_now writes them too.
bool output_flush();
bool output_flush_now();

}  // namespace rtrace::tracer
