// The tracer's writer of the compact format (docs/format.md): the records it has encoded as
// sp-rtrace protocol 2.0 packets (in its per-thread rings and for the header) are transcoded,
// in the order the merge writes them, into compact records: a backtrace seen before becomes a
// reference to its stack id, a function name to its name id, timestamps and resource ids deltas.
// Runs only on the drain path (drain lock held), never allocates.
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/compact_encoder.h"

namespace rtrace::tracer {

// Where the compact bytes go (trace_output.cpp): room for `bytes` bytes in the output buffer
// (null when a record can never fit), and how many of them were written.
char* output_reserve(std::size_t bytes);
void output_commit(std::size_t bytes);

// A new trace begins: the next handshake starts a new file header, every table is empty.
void compact_restart();

// A NOTE record (the writer's remark for the reader), between two records.
void compact_note(const char* text);

// Transcodes whole packets (a handshake, any packets after it).
void compact_transcode(const char* data, std::size_t size);

// One call given by its fields rather than as packets (a release or transient record,
// release_record.h, transient_record.h): the
// CALL record its packets would have been transcoded into, without writing and parsing them.
void compact_call(const compact::CallFields& call);

// An allocation given by its fields and its release at once (a transient record's two calls):
// one transient CALL record (docs/format.md); the release has no backtrace, or with
// `release_has_stack` the allocation's.
void compact_transient(const compact::CallFields& allocation, bool release_has_stack);

// A LEAK_KINDS record (the leak check's, session/leak_check.h): at most
// compact::kMaxLeakKindEntries blocks, ascending.
void compact_leak_kinds(std::uint32_t pid, const compact::LeakKindEntry* entries,
                        std::uint32_t count);

// The next calls are those of thread `tid`, whose records are in ring `slot` (a THREAD record when
// either changes).
void compact_thread(std::uint32_t slot, std::uint64_t tid);

}  // namespace rtrace::tracer
