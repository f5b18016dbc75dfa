#include "tracer/core/thread_rings.h"

#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "tracer/core/signal_stack.h"
#include "tracer/unwind/walk_memo.h"

namespace rtrace::tracer {

constinit TicketSequence g_tickets;
constinit thread_local RingSlot* t_ring_slot __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

// A ring: 2 MiB of records and an index of 64 Ki entries (1 MiB), resident as far as the writer
// lags behind (EventRing::release_pages gives emptied pages back). The rings of threads beyond
// the first kFullSizeRings are a quarter of that: a program of many threads allocating at full
// speed outruns the one writer, and its rings fill; 64 such threads took 210 MB with full-size
// rings, and the writer, not the rings, sets their pace (kSmallestRingCapacity, thread_rings.h).
constexpr std::size_t kRingCapacity = std::size_t{2} << 20;
constexpr std::size_t kRingEntries = std::size_t{1} << 16;
constexpr std::size_t kFullSizeRings = 16;
constexpr std::size_t kSmallRingDivisor = kRingCapacity / kSmallestRingCapacity;

RingSlot g_rings[kMaxRings];
std::atomic<std::size_t> g_ring_slots{0};
pthread_key_t g_ring_key;
void (*g_drain_some)() = nullptr;

thread_local int t_destructor_rounds __attribute__((tls_model("initial-exec"))) = 0;

int current_tid() {
  return static_cast<int>(::syscall(SYS_gettid));
}

// Under ThreadSanitizer (make check-tsan, the ring tests only) the first round: TSan ends its own
// record of a thread in the last round, and an atomic access after that crashes it.
#if defined(__SANITIZE_THREAD__)
constexpr int kRetireRound = 1;
#else
constexpr int kRetireRound = PTHREAD_DESTRUCTOR_ITERATIONS;
#endif

// The thread is ending. Other destructors of the same rounds may still allocate or free, so the
// ring is handed back only in the last round glibc runs; with it the signal stack, which the
// thread stops using first (the next owner may run on it while this thread is still ending).
void retire_ring(void* slot) {
  auto* owned = static_cast<RingSlot*>(slot);
  if (++t_destructor_rounds < kRetireRound) {
    ::pthread_setspecific(g_ring_key, slot);
    return;
  }
  if (owned == t_ring_slot) {
    t_ring_slot = nullptr;
  }
  signal_stack_release(owned->signal_stack);
  owned->ring.owner_tid.store(0, std::memory_order_release);
}

// Whether a ring's owner is gone without handing it back (it recorded something after its last
// destructor round).
bool thread_is_gone(int tid) {
  return ::syscall(SYS_tgkill, ::getpid(), tid, 0) != 0 && errno == ESRCH;
}

bool drained(const EventRing& ring) {
  return ring.head.load(std::memory_order_acquire) == ring.tail.load(std::memory_order_acquire);
}

// A drained ring that is free, or whose owner is gone, becomes this thread's.
RingSlot* claim_unused_ring(int self) {
  constexpr int kMaxLivenessChecks = 8;
  int checks = 0;
  const std::size_t slots = ring_slots();
  for (std::size_t i = 0; i < slots; ++i) {
    EventRing* ring = ring_at(i);
    if (ring == nullptr || !drained(*ring)) {
      continue;
    }
    int owner = ring->owner_tid.load(std::memory_order_acquire);
    if (owner != 0 && (checks++ >= kMaxLivenessChecks || !thread_is_gone(owner))) {
      continue;
    }
    if (ring->owner_tid.compare_exchange_strong(owner, self, std::memory_order_acq_rel)) {
      ring->records_tid.store(self, std::memory_order_relaxed);
      return &g_rings[i];
    }
  }
  return nullptr;
}

RingSlot* new_ring(int self) {
  const std::size_t slot = g_ring_slots.fetch_add(1);
  if (slot >= kMaxRings) {
    return nullptr;
  }
  RingSlot& entry = g_rings[slot];
  const std::size_t divisor = slot < kFullSizeRings ? 1 : kSmallRingDivisor;
  if (!entry.ring.create(kRingCapacity / divisor, kRingEntries / divisor)) {
    return nullptr;
  }
  entry.signal_stack = signal_stack_create();
  void* memo = ::mmap(nullptr, sizeof(WalkMemo), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);  // zeros: every entry empty
  entry.walk_memo = memo == MAP_FAILED ? nullptr : static_cast<WalkMemo*>(memo);
  entry.ring.owner_tid.store(self, std::memory_order_relaxed);
  entry.ring.records_tid.store(self, std::memory_order_relaxed);
  entry.ready.store(true, std::memory_order_release);
  return &entry;
}

}  // namespace

void rings_init(void (*drain_some)()) {
  g_drain_some = drain_some;
  ::pthread_key_create(&g_ring_key, retire_ring);
}

// A thread's first record: claims a ring for it. Out of line, so that my_ring's every-call path
// saves no registers (it saved five for this part).
__attribute__((noinline)) EventRing* claim_my_ring() {
  const int self = current_tid();
  RingSlot* slot = claim_unused_ring(self);
  if (slot == nullptr && g_drain_some != nullptr) {
    // Rings of threads that ended are reusable once drained: drain rather than grow.
    g_drain_some();
    slot = claim_unused_ring(self);
  }
  if (slot == nullptr) {
    slot = new_ring(self);
  }
  if (slot == nullptr) {
    return nullptr;
  }
  t_ring_slot = slot;
  ::pthread_setspecific(g_ring_key, slot);
  signal_stack_adopt(slot->signal_stack);
  return &slot->ring;
}

std::size_t ring_slots() {
  const std::size_t slots = g_ring_slots.load(std::memory_order_acquire);
  return slots < kMaxRings ? slots : kMaxRings;
}

EventRing* ring_at(std::size_t slot) {
  return g_rings[slot].ready.load(std::memory_order_acquire) ? &g_rings[slot].ring : nullptr;
}

std::uint64_t next_ticket() {
  return g_tickets.next.load(std::memory_order_seq_cst);
}

std::uint64_t safe_bound(const EventRing* ignore) {
  std::uint64_t bound = next_ticket();
  const std::size_t slots = ring_slots();
  for (std::size_t i = 0; i < slots; ++i) {
    const EventRing* ring = ring_at(i);
    if (ring == nullptr || ring == ignore) {
      continue;
    }
    const std::uint64_t inflight = ring->inflight.load(std::memory_order_seq_cst);
    if (inflight < bound) {
      bound = inflight;
    }
  }
  return bound;
}

void reset_rings_after_fork() {
  const std::size_t slots = ring_slots();
  for (std::size_t i = 0; i < slots; ++i) {
    EventRing* ring = ring_at(i);
    if (ring == nullptr) {
      continue;
    }
    ring->reset();
    ring->owner_tid.store(t_ring_slot != nullptr && ring == &t_ring_slot->ring ? current_tid() : 0);
    ring->records_tid.store(ring->owner_tid.load());
  }
}

}  // namespace rtrace::tracer
