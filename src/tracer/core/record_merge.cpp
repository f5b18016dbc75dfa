#include "tracer/core/record_merge.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstddef>

#include "tracer/core/clock.h"
#include "tracer/core/event_ring.h"
#include "tracer/core/thread_rings.h"
#include "tracer/output/allocation_record.h"
#include "tracer/output/path_record.h"
#include "tracer/output/release_record.h"
#include "tracer/output/trace_output.h"
#include "tracer/output/transient_record.h"

namespace rtrace::tracer {
namespace {

struct Cursor {
  EventRing* ring;
  std::uint32_t slot;              // the ring's index (ring_at), its THREAD slot
  std::uint64_t position;          // index entry of the current record
  std::uint64_t head;              // index entries published when the drain began
  std::uint64_t payload_position;  // payload bytes before the current record's skip
  std::uint64_t seq;               // the current record's ticket; kNoTicket when none is left
  std::uint64_t given_back;        // payload position given back when waiters were last woken
};

std::atomic<pid_t> g_drain_owner{0};
// How far the drain lock's holders got: a thread waiting for the lock waits as long as this moves
// (written by the holder only, so a plain increment). Counted per run and every kProgressRecords
// records of a run: one run may be a whole ring, tens of thousands of records, which a holder
// given little CPU (a loaded machine) took more than the waiter's patience over, and the program
// exited without its trace's end.
std::atomic<std::uint64_t> g_runs_taken{0};
constexpr std::uint64_t kProgressRecords = 256;

void count_progress() {
  g_runs_taken.store(g_runs_taken.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// Drain lock: the cursors of the current merge. A ring's space is given back only once what was
// taken from it has been written.
Cursor g_cursors[kMaxRings];
std::size_t g_cursor_count = 0;
bool g_output_ok = true;

// The packets of the transient records (transient_record.h) expanded during this merge: queued
// as pieces like ring memory, so they stay here until the next flush. Large enough for the
// largest expansion (two CALLs with the longest name, two backtraces of the deepest walk; or a
// CALL with the longest name and path).
char g_expanded[std::size_t{256} * 1024];
std::size_t g_expanded_used = 0;

// Threads waiting for room in their ring sleep on this word; each merge bumps it.
std::atomic<int> g_merges{0};
std::atomic<int> g_room_waiters{0};

pid_t current_tid() {
  return static_cast<pid_t>(::syscall(SYS_gettid));
}

void load_entry(Cursor& cursor) {
  cursor.seq = cursor.position < cursor.head ? cursor.ring->entry(cursor.position).seq : kNoTicket;
}

// Gives `cursor`'s records taken so far back to its ring.
void return_room(const Cursor& cursor) {
  cursor.ring->release_pages(cursor.payload_position, cursor.position);
  cursor.ring->payload_tail.store(cursor.payload_position, std::memory_order_release);
  cursor.ring->tail.store(cursor.position, std::memory_order_release);
}

// Counts a merge and wakes the threads waiting for room (ring_producer.cpp), if any.
void wake_room_waiters() {
  for (std::size_t i = 0; i < g_cursor_count; ++i) {
    g_cursors[i].given_back = g_cursors[i].payload_position;
  }
  g_merges.fetch_add(1, std::memory_order_seq_cst);
  if (g_room_waiters.load(std::memory_order_seq_cst) > 0) {
    ::syscall(SYS_futex, reinterpret_cast<int*>(&g_merges), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
              nullptr, 0);
  }
}

// Whether the records taken from `cursor` since the waiters were last woken fill an eighth of its
// ring: room worth waking a thread for. A waiter woken for less (at every flush, every ~1,300
// transfers in the binary protocol) filled it at once and slept again, a futex wait and wake-up
// each time: 8-13 ns of every traced transfer's CPU time. A quarter saved as much CPU but made the
// memory module's wall time 6-8 ns worse per call: the program slept while the writer still had
// room to give (bench/memtransfer-ab.sh, sp-rtrace format).
bool eighth_taken(const Cursor& cursor) {
  return (cursor.payload_position - cursor.given_back) * 8 >= cursor.ring->capacity();
}

bool any_eighth_taken() {
  return std::any_of(g_cursors, g_cursors + g_cursor_count, eighth_taken);
}

// Writes the queued pieces, then gives their space back to the rings; wakes the waiters at the end
// of the pass (`pass_ends`) or when an eighth of a ring is free again (eighth_taken).
void flush_pieces(bool pass_ends) {
  g_output_ok = output_flush() && g_output_ok;
  count_progress();
  g_expanded_used = 0;
  for (std::size_t i = 0; i < g_cursor_count; ++i) {
    return_room(g_cursors[i]);
  }
  if (pass_ends || any_eighth_taken()) {
    wake_room_waiters();
  }
}

// Gives `cursor`'s records taken so far back to its ring and wakes the threads waiting for room.
// Only where nothing refers to them any more: the compact format's transcoder copies each record
// as it is added (output_copies_records).
void give_back(const Cursor& cursor) {
  return_room(cursor);
  wake_room_waiters();
}

void add_piece(const char* data, std::size_t size) {
  if (!output_add_piece(data, size)) {
    flush_pieces(false);
    output_add_piece(data, size);
  }
}

// A record that stands for packets (transient_record.h, path_record.h, release_record.h,
// allocation_record.h) goes out as them (flushing first when the buffer or the queue of pieces is
// full; a record that cannot be expanded even then is dropped). `expand` writes them into `out` (at
// most `room` bytes) and gives their length, 0 when they do not fit; it may be called twice for one
// record.
template <typename Expand>
void add_expanded(Expand expand) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    char* out = g_expanded + g_expanded_used;
    const std::size_t length = expand(out, sizeof g_expanded - g_expanded_used);
    if (length > 0 && output_add_piece(out, length)) {
      g_expanded_used += length;
      return;
    }
    flush_pieces(false);
  }
}

// One record of `ring` at `record`, `length` bytes, into the output; `copies`: the output's
// output_copies_records() (the compact format), asked once per pass.
void add_record(EventRing& ring, const char* record, std::size_t length, bool copies) {
  if (is_allocation_record(record)) {
    // As a release record: the allocation's packets were ~136 bytes of the ring, parsed back.
    if (copies) {
      return output_add_call(allocation_record_call(record));
    }
    add_expanded(
        [&](char* out, std::size_t room) { return expand_allocation_record(record, out, room); });
  } else if (is_release_record(record)) {
    // The compact format takes the call's fields: writing its packets and parsing them back cost
    // the writer ~220 instructions per release, of its ~960 per call (bench/callgrind-writer.sh).
    if (copies) {
      return output_add_call(release_record_call(record));
    }
    add_expanded(
        [&](char* out, std::size_t room) { return expand_release_record(record, out, room); });
  } else if (is_transient_record(record)) {
    if (copies) {  // as a release record: its calls' fields, in one transient CALL
      take_transient_allocation(record, ring.consumer_frames, output_add_transient);
      return;
    }
    add_expanded([&](char* out, std::size_t room) {
      return expand_transient(record, ring.consumer_frames, out, room);
    });
  } else if (is_path_record(record)) {
    add_expanded(
        [&](char* out, std::size_t room) { return expand_path_record(record, out, room); });
  } else {
    add_piece(record, length);
  }
}

// Takes records from `cursor` while their tickets stay below `limit`.
void take_run(Cursor& cursor, std::uint64_t limit, std::uint64_t floor, bool emit) {
  count_progress();
  const bool copies = output_copies_records();
  if (copies && emit) {
    output_thread(cursor.slot, static_cast<std::uint32_t>(
                                   cursor.ring->records_tid.load(std::memory_order_relaxed)));
  }
  while (cursor.seq < limit) {
    const EventRing::Entry& entry = cursor.ring->entry(cursor.position);
    if (entry.length > 0) {
      const char* record = cursor.ring->payload(cursor.payload_position + entry.skip);
      if (emit && entry.seq >= floor) {
        add_record(*cursor.ring, record, entry.length, copies);
      } else if (is_transient_record(record)) {
        skip_transient(record, cursor.ring->consumer_frames);  // later records share its frames
      }
    }
    cursor.payload_position += entry.skip + entry.length;
    ++cursor.position;
    load_entry(cursor);
    if (cursor.position % kProgressRecords == 0) {
      count_progress();
    }
    // A thread whose ring is full waits for room (ring_producer.cpp): without this it waited for
    // the end of the whole pass, as long as filling the ring had taken it, and a single-threaded
    // program spent about half its added wall time so (perf of `rtrace record`, 1 thread). Not
    // before an eighth of the ring is free (eighth_taken).
    if (copies && eighth_taken(cursor) && g_room_waiters.load(std::memory_order_relaxed) > 0) {
      give_back(cursor);
    }
  }
}

void open_cursors() {
  g_cursor_count = 0;
  const std::size_t slots = ring_slots();
  for (std::size_t i = 0; i < slots; ++i) {
    EventRing* ring = ring_at(i);
    if (ring == nullptr) {
      continue;
    }
    Cursor& cursor = g_cursors[g_cursor_count];
    cursor.ring = ring;
    cursor.slot = static_cast<std::uint32_t>(i);
    cursor.position = ring->tail.load(std::memory_order_relaxed);
    cursor.head = ring->head.load(std::memory_order_acquire);
    cursor.payload_position = ring->payload_tail.load(std::memory_order_relaxed);
    cursor.given_back = cursor.payload_position;
    load_entry(cursor);
    if (cursor.seq != kNoTicket) {
      ++g_cursor_count;
    }
  }
}

}  // namespace

bool drain_try_lock() {
  pid_t expected = 0;
  return g_drain_owner.compare_exchange_strong(expected, current_tid(), std::memory_order_acquire);
}

bool drain_lock(long patience_ms) {
  const pid_t self = current_tid();
  const std::uint64_t patience_ns = static_cast<std::uint64_t>(patience_ms) * 1000000;
  std::uint64_t runs = g_runs_taken.load(std::memory_order_relaxed);
  std::uint64_t since = monotonic_nanoseconds();
  for (;;) {
    pid_t expected = 0;
    if (g_drain_owner.compare_exchange_strong(expected, self, std::memory_order_acquire)) {
      return true;
    }
    if (expected == self) {
      return false;
    }
    // A holder still taking records (a writer far behind at exit) is not stuck: its drain ends,
    // since tickets stop with tracing, and giving up would lose the records and the END.
    const std::uint64_t now = g_runs_taken.load(std::memory_order_relaxed);
    if (now != runs) {
      runs = now;
      since = monotonic_nanoseconds();
    }
    if (patience_ms >= 0 && monotonic_nanoseconds() - since > patience_ns) {
      return false;
    }
    timespec pause{0, 100000};
    ::nanosleep(&pause, nullptr);
  }
}

void drain_unlock() {
  g_drain_owner.store(0, std::memory_order_release);
}

// Repeatedly the ring with the smallest ticket gives all its records that come before every other
// ring's next one; a single-threaded program's records thus go out as whole runs of ring memory.
bool merge_records(std::uint64_t bound, std::uint64_t floor, bool emit) {
  g_output_ok = true;
  open_cursors();
  for (;;) {
    std::size_t best = g_cursor_count;
    std::uint64_t limit = bound;
    for (std::size_t i = 0; i < g_cursor_count; ++i) {
      const std::uint64_t seq = g_cursors[i].seq;
      if (best == g_cursor_count || seq < g_cursors[best].seq) {
        if (best != g_cursor_count && g_cursors[best].seq < limit) {
          limit = g_cursors[best].seq;
        }
        best = i;
      } else if (seq < limit) {
        limit = seq;
      }
    }
    if (best == g_cursor_count || g_cursors[best].seq >= bound) {
      break;
    }
    take_run(g_cursors[best], limit, floor, emit);
  }
  flush_pieces(true);
  return g_output_ok;
}

int merges_done() {
  return g_merges.load(std::memory_order_seq_cst);
}

void wait_for_merge(int seen, long timeout_ms) {
  g_room_waiters.fetch_add(1, std::memory_order_seq_cst);
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
  ::syscall(SYS_futex, reinterpret_cast<int*>(&g_merges), FUTEX_WAIT_PRIVATE, seen, &timeout,
            nullptr, 0);
  g_room_waiters.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace rtrace::tracer
