// The first pass of the binary format's leaks scan (`rtrace process -l` on an sp-rtrace binary
// file, see leaks_scan_read.h): walks the packets reading only what decides which allocations are
// still alive at the end (packet_walker.h) and skips every ARGS and BTRC body after checking it as
// the reader does. What it returns is the list of stretches of the file that the second pass
// decodes, in file order: the handshake, every packet that is not part of a call, and the calls
// that matter.
//
// It applies the leaks stage's rule (filters/live_resources.h, filters/leaks_filter.h) per
// process, as PidSplit gives every process its own leaks stage (live_calls.h). A large file is
// cut in two halves (see LeaksScanSplit, two_halves.h), each half parsed and applied in batches
// on a thread of its own; otherwise the batches are applied on a second thread while the file is
// read and parsed on the caller's (batch_worker.h). What the other thread throws (out of memory)
// is thrown to the caller, as on one thread. Whatever the general path would treat
// specially (damage, a truncated end, a second handshake, a protocol other than 2.0 in the
// machine's byte order, a resource type made refcounted after the first call, too many processes,
// more than `max_kept_bytes` to decode) makes it give up: the caller then reads the trace the
// general way, which reports it exactly as before. Sizes read from the file only ever bound what
// is read, checked against what the packet holds.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace rtrace {

class MappedFile;
class Progress;

// One stretch of the file for the second pass.
struct LeaksScanPiece {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  // For a call: its index (1-based position among the trace's calls); 0 for anything else.
  std::uint64_t call_index = 0;
  // A call that cannot leak but is delivered (its CALL packet only) so that every stage before
  // the leaks stage sees the same processes in the same order: the first call, the first after
  // each PINF, one whose process differs from the call before, and the last before any other
  // packet (PidSplit routes heap info and attachments to the branch of the record before them).
  bool routing_only = false;
};

struct LeaksScan {
  std::uint64_t file_size = 0;
  std::vector<LeaksScanPiece> pieces;  // in file order, the handshake first
  // Where the second thread's half began (LeaksScanSplit); 0 when one thread scanned it all.
  std::uint64_t second_half = 0;
};

// Where the scan may cut a file in two halves, scanned side by side on two threads (each
// parsing its half and keeping its own table of live blocks; the halves' tables are joined at
// the end). The second half starts at a CALL packet found from `search_from` on (when not set,
// 53.3 % into the file: the second half's bytes cost ~15 % more, as it also notes the keys it
// releases, and it sorts its calls for the second pass at its end; tests choose); it is a guess
// until the first half's own walk lands on it. Whatever the
// split cannot join exactly (no such packet found, the first half's walk going past it, a PINF in
// the second half, a refcounted resource type) leaves the rest of the file to the first half's
// thread, as if there had been no split: the result is always the one-thread scan's, piece for
// piece.
struct LeaksScanSplit {
  std::uint64_t min_file_size = std::uint64_t{8} << 20;  // smaller files: one pass, no split
  std::optional<std::uint64_t> search_from;
  // Fewer CPUs in the process's affinity mask: one pass (two halves would take turns on one).
  int min_cpus = 2;
  // One pass when the load average (1 minute) is two or more above the CPUs: the two halves
  // cost ~6 % more instructions than one pass (each thread's parsing evicts its own table from
  // the cache, the second half notes the keys it releases); on a machine that busy they were
  // measured slower than one pass, below it faster.
  bool gate_on_load = true;
};

// Scans the mapped file `mapped` (io/mapped_file.h) from its start, trusting only what its
// readable() vouches for; nothing when the fast path does not apply (also when the file was
// found truncated while scanned). The bytes scanned are counted into `progress` when not null (a
// progress line on a terminal, io/progress.h).
std::optional<LeaksScan> scan_binary_leaks(MappedFile& mapped, std::uint64_t max_kept_bytes,
                                           Progress* progress = nullptr,
                                           const LeaksScanSplit& split = {});

}  // namespace rtrace
