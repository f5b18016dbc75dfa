#include "filters/leaks_scan.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <limits>
#include <memory>
#include <system_error>
#include <thread>
#include <utility>

#include "filters/batch_worker.h"
#include "filters/live_resources.h"
#include "filters/packed_key_set.h"
#include "filters/resource_map.h"
#include "io/mapped_file.h"
#include "io/progress.h"
#include "model/seeded_hash.h"
#include "protocol/sprtrace_packet_cursor.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace {
namespace {

using sprtrace::load_u16;
using sprtrace::load_u32;
using sprtrace::load_u64;
using sprtrace::PacketType;

// A mapped file is vouched for (MappedFile::readable(), an fstat) this much at a time.
constexpr std::size_t kMappedStep = std::size_t{4} << 20;
// The largest packet the reader accepts (binary_reader.cpp: InputStream::kMaxPeek).
constexpr std::uint64_t kMaxPacket = std::uint64_t{64} << 20;
// A guess of the bytes of a trace per distinct key released (the second half's table of them;
// the bench trace, bench/process-common.sh, has one per ~570 bytes).
constexpr std::uint64_t kBytesPerRelease = 512;
// More processes than this: the general path (PidSplit's own limit is 512).
constexpr std::size_t kMaxProcesses = 256;
static_assert(kMaxProcesses <= 65536, "a process number is 16 bits in the scan's events");

constexpr std::uint32_t type_of(PacketType type) {
  return static_cast<std::uint32_t>(type);
}

// Whether the load average (1 minute) is below `cpus` + 2: on 2 CPUs the two halves side by side
// beat one pass at loads 1.8-3.9 and lost at 3.6-4.6 beside another 2-thread process, where they
// take turns on one core and cost ~20 % more CPU. The load counts this process too when it runs
// back to back, as in a benchmark.
bool not_overloaded(int cpus) {
  double load = 0;
  return ::getloadavg(&load, 1) == 1 && load < cpus + 2;
}

// How many CPUs this process may run on (its affinity mask): with one, two halves would only
// take turns on it.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

// Where a string field of a packet ends, as PacketCursor::string() reads it; nothing when it
// does not fit.
std::optional<std::size_t> skip_string(const std::uint8_t* data, std::size_t size,
                                       std::size_t pos) {
  if (size - pos < 2) {
    return std::nullopt;
  }
  const std::size_t length = load_u16(data + pos, false);
  if (size - pos < 2 + length) {
    return std::nullopt;
  }
  return std::min((pos + 2 + length + 3) & ~std::size_t{3}, size);
}

// The allocations alive at the moment, each with its candidate slot, under the rule of
// live_resources.h (kept in step with it): one ResourceMap (keyed with the process's secret seed,
// as every table of what a trace holds) per process of the scan, by the number it gives them.
class LiveTable {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // The second half's table (LeaksScanSplit; one process, keys that PackedKeySet::fits()) also
  // keeps the keys of the blocks it released, so that it knows the releases of keys it never
  // saw: those end the first half's blocks when the halves are joined (what the second half did
  // first to a key decides: an allocation replaces a block, which leaked and is kept; a release
  // ends it).
  explicit LiveTable(bool keep_released = false)
      : keep_released_(keep_released), released_(seed_, 0) {}

  // With keep_released: room for about `expected` released keys (a guess, for the first size).
  // Called on the thread that fills the table: the table's pages (megabytes) are cleared there,
  // not on the thread that started it.
  void expect_released(std::size_t expected) { released_ = PackedKeySet(seed_, expected); }

  // The hash of a resource as the tables compute it: the parsing thread hashes each event's
  // key, so that the table's thread, the busier one, only looks it up.
  std::uint64_t hash(Address id, std::uint32_t type) const {
    return ResourceMap<Live>::hash_with({.id = id, .type = type}, seed_);
  }

  // Asks the cache for the slot where a lookup of this hash starts.
  // With keep_released, also the slot of the released keys where a release will note it.
  void prefetch(std::uint32_t process, std::uint64_t hash, bool alloc) {
    of(process).prefetch_hash(hash);
    if (keep_released_ && !alloc) {
      released_.prefetch(hash);
    }
  }

  // An allocation: where to store the new block's candidate, or nullptr when it only added a
  // reference to a live block of a refcounted type. `replaced` is the candidate of the live
  // block the new one replaces (that block leaked: the leaks stage keeps it), or kNone.
  std::uint32_t* allocate(Address id, std::uint32_t type, std::uint32_t process, bool refcounted,
                          std::uint64_t hash, std::uint32_t& replaced) {
    ResourceMap<Live>& blocks = of(process);
    const auto [position, added] = blocks.insert({.id = id, .type = type}, Live{}, hash);
    Live& live = blocks.at(position);
    if (!added && refcounted) {
      ++live.references;
      return nullptr;
    }
    replaced = live.candidate;
    live = Live{.candidate = kNone, .references = 1};
    return &live.candidate;
  }

  // A release: the candidate of the block it ends, or kNone (unknown, or references remain).
  [[gnu::always_inline]] std::uint32_t release(Address id, std::uint32_t type,
                                               std::uint32_t process, bool refcounted,
                                               std::uint64_t hash) {
    ResourceMap<Live>& blocks = of(process);
    const std::size_t position = blocks.find({.id = id, .type = type}, hash);
    if (position == ResourceMap<Live>::kNone) {
      // Never allocated here (else it would be alive or released): the first call of the key
      // (or one after such a first release: releasing again at the join does nothing).
      if (keep_released_) [[unlikely]] {
        note_unseen(process, {.id = id, .type = type}, hash);
      }
      return kNone;
    }
    Live& live = blocks.at(position);
    if (--live.references > 0 && refcounted) {
      return kNone;
    }
    const std::uint32_t candidate = live.candidate;
    blocks.erase_at(position);
    if (keep_released_) [[unlikely]] {
      released_.insert({.id = id, .type = type}, hash);
    }
    return candidate;
  }

  // Out of line: release() inlines into the loop over a batch.
  [[gnu::noinline]] void note_unseen(std::uint32_t process, const ResourceKey& key,
                                     std::uint64_t hash) {
    if (!released_.contains(key, hash)) {
      released_unseen_.push_back({process, key});
    }
  }

  // With keep_released: the keys whose first call was a release, with their processes.
  const std::vector<std::pair<std::uint32_t, ResourceKey>>& released_unseen() const {
    return released_unseen_;
  }

  // The candidate of every block alive, in no particular order.
  template <typename Visit>
  void for_each_candidate(Visit visit) const {
    for (const ResourceMap<Live>& blocks : processes_) {
      blocks.for_each([&](const ResourceKey&, const Live& live) { visit(live.candidate); });
    }
  }

 private:
  struct Live {
    std::uint32_t candidate = kNone;
    std::uint32_t references = 0;
  };

  ResourceMap<Live>& of(std::uint32_t process) {
    if (process >= count_) [[unlikely]] {
      add_up_to(process);
    }
    return processes_[process];
  }
  // Out of line: of() inlines into the loop over a batch.
  [[gnu::noinline]] void add_up_to(std::uint32_t process) {
    processes_.resize(std::size_t{process} + 1);
    count_ = processes_.size();
  }

  const std::uint64_t seed_ = hash_seed();  // read by both threads, never written
  const bool keep_released_;
  PackedKeySet released_;  // with keep_released_
  std::vector<std::pair<std::uint32_t, ResourceKey>> released_unseen_;
  std::vector<ResourceMap<Live>> processes_;
  std::size_t count_ = 0;  // processes_.size(), kept apart: it costs a division
};

class Scanner {
 public:
  Scanner(MappedFile& mapped, std::uint64_t max_kept_bytes, Progress* progress,
          const LeaksScanSplit& split)
      : mapped_(mapped),
        bytes_(mapped.bytes().data()),
        size_(mapped.size()),
        progress_(progress),
        max_kept_(max_kept_bytes),
        split_(split) {}

  std::optional<LeaksScan> run();

 private:
  struct SecondHalf;
  // How far a walk went: to its limit, to a packet across it (the limit was no packet boundary),
  // or not (the general path must read the trace).
  enum class Walk { Done, Overran, GaveUp };
  // What the second half's scan gives the first: joined, or the rest of the file to scan alone,
  // or the trace to the general path.
  enum class Join { Joined, GoOnAlone, GiveUp };

  // The second half's scanner, from `start` to the end of the file, on its own thread.
  Scanner(const Scanner& first, std::uint64_t start, const std::atomic<bool>& stop);

  // An allocation whose resource may still be alive at the end.
  struct Candidate {
    std::uint64_t offset = 0;
    std::uint64_t index = 0;
    std::uint64_t length = 0;
  };
  // The call whose ARGS and BTRC packets may follow.
  struct Group {
    std::uint64_t offset = 0;
    std::uint64_t call_length = 0;  // of the CALL packet alone
    std::uint64_t end = 0;
    std::uint64_t index = 0;
    bool kept_for_routing = false;
  };
  // An allocation or release, for the live table once its call's length is known.
  struct Event {
    Address id = 0;
    std::uint64_t hash = 0;  // LiveTable::hash(id, type)
    std::uint64_t offset = 0;
    std::uint64_t index = 0;
    std::uint32_t length = 0;  // of the call with its ARGS and BTRC (longer: the general path)
    std::uint32_t type = 0;
    std::uint16_t process = 0;
    bool alloc = false;
  };
  // Events are applied in batches: the live-table slots of a batch are asked for ahead of their
  // use, so that the cache misses of many calls overlap instead of stalling one by one.
  static constexpr std::size_t kBatch = 8192;
  static constexpr std::size_t kInlineBatch = 8192;
  std::size_t batch_ = kBatch;
  static constexpr std::size_t kPrefetchDistance = 16;

  bool vouch(std::uint64_t end);
  bool read_handshake();
  bool start_second_half();
  bool prefix_allows_split() const;
  std::uint64_t find_second_half(std::uint64_t from) const;
  bool plausible_packets(std::uint64_t at) const;
  bool scan_second_half();
  Join join_second_half();
  Walk scan_packets(std::uint64_t limit);
  bool scan_vouched(std::uint64_t limit);
  void apply_events(std::vector<Event>& events);
  bool packet(std::uint32_t type, const std::uint8_t* data, std::size_t size, std::uint64_t offset);
  bool call(const std::uint8_t* data, std::size_t size, std::uint64_t offset, std::uint64_t length);
  bool call_part(std::uint32_t type, const std::uint8_t* data, std::size_t size);
  bool other(std::uint32_t type, const std::uint8_t* data, std::size_t size, std::uint64_t offset,
             std::uint64_t length);
  bool close_group();
  void keep_for_routing(Group& group);
  bool keep(LeaksScanPiece piece);
  // The table's number for `pid`; nothing when there are too many processes. The call before's
  // process inline, the others out of line (the loop over packets keeps its registers).
  std::optional<std::uint32_t> process_of(std::uint32_t pid) {
    if (current_ < processes_.size() && processes_[current_] == pid) [[likely]] {
      return current_;
    }
    return find_process(pid);
  }
  [[gnu::noinline]] std::optional<std::uint32_t> find_process(std::uint32_t pid);
  bool refcounted(std::uint32_t type) const {
    return !refcounted_.empty() &&
           std::find(refcounted_.begin(), refcounted_.end(), type) != refcounted_.end();
  }
  std::uint32_t new_slot(const Event& event);
  void add_survivors(std::vector<LeaksScanPiece>& calls, std::uint64_t base) const;
  static void sort_calls(std::vector<LeaksScanPiece>& calls);
  LeaksScan result();

  MappedFile& mapped_;
  const std::uint8_t* bytes_;  // the mapping: trust only [0, vouched_)
  std::uint64_t size_;
  std::uint64_t vouched_ = 0;  // MappedFile::readable() vouched for the bytes before this
  std::uint64_t offset_ = 0;   // of the next packet
  Progress* progress_;         // or nullptr
  std::uint64_t max_kept_;
  LeaksScanSplit split_;
  std::uint64_t kept_bytes_ = 0;
  std::uint8_t pointer_size_ = 8;
  std::vector<LeaksScanPiece> pieces_;
  std::vector<LeaksScanPiece> routing_calls_;
  // On the second half's scanner, once scanned: its routing calls and survivors (sort_calls()),
  // their call indices counted from its start; and whether its first call was kept for routing.
  std::vector<LeaksScanPiece> calls_kept_;
  bool first_kept_for_routing_ = false;

  std::uint64_t calls_ = 0;
  std::uint32_t pid_ = 0;  // of the last PINF, as the reader gives it to calls
  std::optional<std::uint32_t> first_pid_;
  bool after_process_info_ = false;
  std::optional<std::uint32_t> previous_call_pid_;
  std::vector<std::uint32_t> refcounted_;  // resource types, as effective_resource_type()

  bool pending_ = false;  // a call whose ARGS and BTRC may follow
  Group group_;
  // The pending call allocates or releases: it is events_.back(), its length still that of its
  // CALL packet.
  bool event_pending_ = false;
  std::vector<Event> events_;  // the batch being filled
  bool have_last_ = false;     // group_ is the last call before the current packet

  LiveTable live_;
  std::vector<std::uint32_t> processes_;  // pids, by the number the table keys them with
  std::uint32_t current_ = 0;             // the process of the call before
  std::vector<Candidate> slots_;          // those in free_slots_ are free
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> leaked_;  // blocks replaced by an allocation of their key: kept

  // The second half (set on the first half's scanner while a split runs): the scanner and the
  // thread, where it starts, the first half's call count there once joined.
  std::unique_ptr<SecondHalf> second_;
  std::uint64_t second_start_ = 0;
  std::uint64_t second_base_ = 0;
  bool joined_ = false;
  // On the second half's scanner: set by the first half when it no longer wants the result.
  const std::atomic<bool>* stop_ = nullptr;
  bool abandoned_ = false;  // a PINF: the first half goes on from the start of the second
  std::uint64_t first_call_length_ = 0;  // of the CALL packet the scan met first

  // Declared last: destroyed (joined) first, before the tables it works on. Made by run() (or
  // the second half's thread): with a thread of its own unless the file is split.
  std::optional<BatchWorker<std::vector<Event>>> worker_;
};

// The second half's scanner and thread; destroying it stops and joins the thread.
struct Scanner::SecondHalf {
  SecondHalf() = default;
  SecondHalf(const SecondHalf&) = delete;
  SecondHalf& operator=(const SecondHalf&) = delete;
  ~SecondHalf() {
    stop.store(true, std::memory_order_relaxed);
    if (thread.joinable()) {
      thread.join();
    }
  }

  std::atomic<bool> stop{false};
  std::unique_ptr<Scanner> scanner;
  bool scanned = false;  // written by the thread, read after join()
  std::exception_ptr error;
  std::thread thread;
};

Scanner::Scanner(const Scanner& first, std::uint64_t start, const std::atomic<bool>& stop)
    : mapped_(first.mapped_),
      bytes_(first.bytes_),
      size_(first.size_),
      vouched_(start),
      offset_(start),
      progress_(nullptr),
      max_kept_(first.max_kept_),
      split_(first.split_),
      pointer_size_(first.pointer_size_),
      previous_call_pid_(0),  // its calls' pid until a PINF, which ends the split
      live_(true),
      stop_(&stop) {
  second_start_ = start;  // on the second half's scanner: where it starts
}

// What applying a batch threw on the worker (out of memory for the live table), or what the
// second half's thread threw, is thrown here, as if the scan ran on one thread: the tool reports
// it instead of reading the trace again.
std::optional<LeaksScan> Scanner::run() {
  bool scanned = read_handshake();
  const bool split = scanned && start_second_half();
  worker_.emplace([this](std::vector<Event>& e) { apply_events(e); }, !split);
  if (split) {
    batch_ = kInlineBatch;
  }
  if (split) {
    const Walk walk = scan_packets(second_start_);
    const Join join = walk == Walk::GaveUp ? Join::GiveUp
                      : walk == Walk::Done ? join_second_half()
                                           : Join::GoOnAlone;
    if (join == Join::GoOnAlone) {
      second_->stop.store(true, std::memory_order_relaxed);
    }
    scanned =
        join == Join::Joined || (join == Join::GoOnAlone && scan_packets(size_) == Walk::Done);
  } else if (scanned) {
    scanned = scan_packets(size_) == Walk::Done;
  }
  scanned = scanned && close_group() && worker_->hand_over(events_);
  if (!worker_->finish()) {
    std::rethrow_exception(worker_->error());
  }
  // A file cut short at any time during the scan (a fault noted, or its size now) is the
  // general path's to report.
  if (!scanned || mapped_.readable(0, size_) < size_) {
    return std::nullopt;
  }
  return result();
}

// Whether the mapping's first `end` bytes are the file's (end <= size_), asking readable() for
// kMappedStep or more at a time (each asks fstat()).
bool Scanner::vouch(std::uint64_t end) {
  if (end <= vouched_) {
    return true;
  }
  if (stop_ != nullptr) {
    // The second half: the whole file was vouched for before its thread started (readable()
    // is the first half's alone); here it only looks whether the first half still wants it.
    if (stop_->load(std::memory_order_relaxed)) {
      return false;
    }
    vouched_ = std::min(size_, std::max(end, vouched_ + kMappedStep));
    return true;
  }
  const std::uint64_t want =
      std::min(std::max(end - vouched_, std::uint64_t{kMappedStep}), size_ - vouched_);
  vouched_ += mapped_.readable(vouched_, static_cast<std::size_t>(want));
  return end <= vouched_;
}

// Starts the second half on a thread of its own when the file is large enough, no resource type
// is refcounted (the halves' tables could not be joined), the whole file is still there (the
// second half reads it without asking readable(): one thread asks, the first half's, and the scan
// asks again at its end) and a CALL packet is found past the middle.
bool Scanner::start_second_half() {
  const int cpus = usable_cpus();
  if (size_ < split_.min_file_size || cpus < split_.min_cpus ||
      (split_.gate_on_load && !not_overloaded(cpus)) || !prefix_allows_split() ||
      mapped_.readable(0, size_) < size_) {
    return false;
  }
  const std::uint64_t start =
      find_second_half(std::max(offset_, split_.search_from.value_or(size_ / 2 + size_ / 30)));
  if (start == size_) {
    return false;
  }
  auto half = std::make_unique<SecondHalf>();
  half->scanner = std::unique_ptr<Scanner>(new Scanner(*this, start, half->stop));
  try {
    half->thread = std::thread([&half = *half] {
      try {
        half.scanned = half.scanner->scan_second_half();
      } catch (...) {
        half.error = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    return false;  // out of threads: one scan, as for a small file
  }
  second_ = std::move(half);
  second_start_ = start;
  return true;
}

// Whether the packets before the first call register no refcounted resource type (one
// registered after a call makes the scan give up anyway). Walks them as scan_packets() will.
bool Scanner::prefix_allows_split() const {
  for (std::uint64_t at = offset_; size_ - at >= sprtrace::kPacketHeaderSize;) {
    const std::uint32_t type = load_u32(bytes_ + at, false);
    const std::uint64_t size = load_u32(bytes_ + at + 4, false);
    if (bytes_[at] == sprtrace::kHandshakeId || size > size_ - at - sprtrace::kPacketHeaderSize) {
      return false;
    }
    if (type == type_of(PacketType::FunctionCall)) {
      return true;
    }
    if (type == type_of(PacketType::ResourceRegistry) && size >= 8) {
      ResourceType resource;
      resource.flags = load_u32(bytes_ + at + 12, false);
      if (resource.refcounted()) {
        return false;
      }
    }
    at += sprtrace::kPacketHeaderSize + size;
  }
  return false;  // no call: nothing to split
}

// The first position from `from` on (within 1 MiB) where a CALL packet seems to start, or the
// file's size. Only a guess: the first half's walk must land on it.
std::uint64_t Scanner::find_second_half(std::uint64_t from) const {
  constexpr std::uint64_t kSearch = std::uint64_t{1} << 20;
  const std::uint64_t end = size_ - std::min(size_, from) > kSearch ? from + kSearch : size_;
  for (std::uint64_t at = from; at < end && size_ - at >= sprtrace::kPacketHeaderSize; ++at) {
    if (load_u32(bytes_ + at, false) == type_of(PacketType::FunctionCall) &&
        plausible_packets(at)) {
      return at;
    }
  }
  return size_;
}

// Whether the bytes at `at` read as a few packets of known types, each within the file.
bool Scanner::plausible_packets(std::uint64_t at) const {
  constexpr int kPackets = 16;
  for (int i = 0; i < kPackets && at != size_; ++i) {
    if (size_ - at < sprtrace::kPacketHeaderSize) {
      return false;
    }
    const std::uint32_t type = load_u32(bytes_ + at, false);
    const std::uint64_t size = load_u32(bytes_ + at + 4, false);
    if (!sprtrace::is_known_packet_type(type) || size > kMaxPacket ||
        size > size_ - at - sprtrace::kPacketHeaderSize) {
      return false;
    }
    at += sprtrace::kPacketHeaderSize + size;
  }
  return true;
}

// On the second half's thread: its packets to the end of the file, its batches applied here.
bool Scanner::scan_second_half() {
  // Keys released: about one per kBytesPerRelease bytes of the half (a guess: fewer cost
  // 16 bytes of table each, more a growth or two).
  live_.expect_released(static_cast<std::size_t>((size_ - second_start_) / kBytesPerRelease));
  worker_.emplace([this](std::vector<Event>& e) { apply_events(e); }, false);
  batch_ = kInlineBatch;
  const bool scanned =
      scan_packets(size_) == Walk::Done && close_group() && worker_->hand_over(events_);
  if (!worker_->finish()) {
    std::rethrow_exception(worker_->error());
  }
  if (scanned) {
    // Its calls for the second pass, ready while the first half may still be scanning: they
    // are final (the first half changes nothing in the second half's table).
    first_kept_for_routing_ =
        !routing_calls_.empty() && routing_calls_.front().offset == second_start_;
    calls_kept_ = std::move(routing_calls_);
    add_survivors(calls_kept_, 0);
    sort_calls(calls_kept_);
  }
  return scanned;
}

// Once the first half's walk landed on the second half's start: takes over what the second half
// found, as the one-thread scan would have gone on. Its first call is a routing call when the
// call before it or a PINF just before it says so; its process is the one the first half ended
// in (it met no PINF).
Scanner::Join Scanner::join_second_half() {
  SecondHalf& half = *second_;
  half.thread.join();
  if (half.error) {
    std::rethrow_exception(half.error);
  }
  Scanner& second = *half.scanner;
  if (second.abandoned_ || !refcounted_.empty()) {
    return Join::GoOnAlone;
  }
  // The first half's last call ends where the second half starts (a CALL packet).
  if (!half.scanned || !close_group() || !worker_->hand_over(events_)) {
    return Join::GiveUp;
  }
  const std::uint32_t pid = pid_ != 0 ? pid_ : first_pid_.value_or(0);
  if ((after_process_info_ || previous_call_pid_ != pid) && !second.first_kept_for_routing_) {
    Group first{.offset = second_start_,
                .call_length = second.first_call_length_,
                .end = second_start_ + second.first_call_length_,
                .index = calls_ + 1};
    keep_for_routing(first);
  }
  if (!second.processes_.empty()) {
    const std::optional<std::uint32_t> process = process_of(pid);
    if (!process) {
      return Join::GiveUp;
    }
    // What the second half did first to a key it found no block of: release the first half's.
    for (const auto& [unused, key] : second.live_.released_unseen()) {
      const std::uint32_t slot =
          live_.release(key.id, key.type, *process, false, live_.hash(key.id, key.type));
      if (slot != LiveTable::kNone) {
        free_slots_.push_back(slot);
      }
    }
  }
  kept_bytes_ += second.kept_bytes_;
  if (kept_bytes_ > max_kept_) {
    return Join::GiveUp;
  }
  second_base_ = calls_;
  calls_ += second.calls_;
  if (progress_ != nullptr) {
    progress_->advance(second.offset_ - second_start_);
  }
  offset_ = second.offset_;
  joined_ = true;
  return Join::Joined;
}

// Every packet from offset_ to `limit` (the file's end, or where the second half starts).
Scanner::Walk Scanner::scan_packets(std::uint64_t limit) {
  while (offset_ < limit) {
    if (size_ - offset_ < sprtrace::kPacketHeaderSize) {
      return Walk::GaveUp;  // a truncated end: the general path warns of it
    }
    if (!vouch(offset_ + sprtrace::kPacketHeaderSize)) {
      return Walk::GaveUp;  // cut short meanwhile
    }
    const std::uint8_t* head = bytes_ + offset_;
    if (head[0] == sprtrace::kHandshakeId) {
      return Walk::GaveUp;  // a second trace: the general path warns and stops
    }
    const std::uint64_t total = sprtrace::kPacketHeaderSize + load_u32(head + 4, false);
    if (total > kMaxPacket || total > size_ - offset_ || !vouch(offset_ + total)) {
      return Walk::GaveUp;
    }
    if (total > limit - offset_) {
      return Walk::Overran;
    }
    if (!scan_vouched(limit)) {
      return Walk::GaveUp;
    }
  }
  return Walk::Done;
}

// The packets wholly in the part vouched for, the first of which is known to be: readable() is
// asked again only when the next packet runs past it. False when a packet makes the scan give up.
bool Scanner::scan_vouched(std::uint64_t limit) {
  const std::uint8_t* const start = bytes_ + offset_;
  // No more than the largest packet the reader accepts: a packet wholly inside is never larger
  // (scan_packets() refuses the larger ones), at no cost per packet.
  const std::size_t available = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::min(vouched_, limit) - offset_, kMaxPacket));
  std::size_t pos = 0;
  while (available - pos >= sprtrace::kPacketHeaderSize) {
    const std::uint8_t* head = start + pos;
    const std::uint32_t size = load_u32(head + 4, false);
    if (head[0] == sprtrace::kHandshakeId || size > available - pos - sprtrace::kPacketHeaderSize) {
      break;  // scan_packets() decides
    }
    if (!packet(load_u32(head, false), head + sprtrace::kPacketHeaderSize, size, offset_ + pos)) {
      return false;
    }
    pos += sprtrace::kPacketHeaderSize + size;
  }
  offset_ += pos;
  if (progress_ != nullptr) {
    progress_->advance(pos);  // once a stretch vouched for: a few dozen times for a large file
  }
  return true;
}

// As the reader checks it; only version 2.0 in the machine's byte order is scanned.
bool Scanner::read_handshake() {
  if (size_ < 2 || !vouch(2) || bytes_[0] != sprtrace::kHandshakeId) {
    return false;
  }
  const std::size_t total = 2 + std::size_t{bytes_[1]};
  if (total > size_ || !vouch(total)) {
    return false;
  }
  const std::uint8_t* bytes = bytes_;
  const std::size_t arch_length = bytes[4];
  if (5 + arch_length + 2 > total) {
    return false;
  }
  const std::uint8_t order = bytes[5 + arch_length];
  const std::uint8_t pointer_size = bytes[6 + arch_length];
  const bool little = std::endian::native == std::endian::little;
  if (bytes[2] != sprtrace::kWrittenMajor || bytes[3] != sprtrace::kWrittenMinor ||
      order != (little ? 0 : 1) || (pointer_size != 4 && pointer_size != 8)) {
    return false;
  }
  pointer_size_ = pointer_size;
  offset_ = total;
  return keep({.offset = 0, .length = total});
}

bool Scanner::packet(std::uint32_t type, const std::uint8_t* data, std::size_t size,
                     std::uint64_t offset) {
  const std::uint64_t length = size + sprtrace::kPacketHeaderSize;
  if (type == type_of(PacketType::FunctionCall)) {
    return call(data, size, offset, length);  // reads and clears after_process_info_
  }
  if (pending_ &&
      (type == type_of(PacketType::FunctionArgs) || type == type_of(PacketType::Backtrace))) {
    group_.end = offset + length;
    return call_part(type, data, size);
  }
  return other(type, data, size, offset, length);
}

// CALL (2.0): resource type, context, timestamp, kind, name, size, resource id.
bool Scanner::call(const std::uint8_t* data, std::size_t size, std::uint64_t offset,
                   std::uint64_t length) {
  if (!close_group()) {
    return false;
  }
  const bool first_after_process = std::exchange(after_process_info_, false);
  if (size < 16) {
    return false;
  }
  const std::optional<std::size_t> after_name = skip_string(data, size, 16);
  if (!after_name || size - *after_name < 4 + std::size_t{pointer_size_}) {
    return false;
  }
  const std::uint32_t resource_type = load_u32(data, false);
  const std::uint32_t kind = load_u32(data + 12, false);
  const std::uint8_t* id_field = data + *after_name + 4;
  const Address id = pointer_size_ == 8 ? load_u64(id_field, false) : load_u32(id_field, false);

  const std::uint32_t pid = pid_ != 0 ? pid_ : first_pid_.value_or(0);  // as PidSplit routes
  group_ =
      Group{.offset = offset, .call_length = length, .end = offset + length, .index = ++calls_};
  if (calls_ == 1) {
    first_call_length_ = length;
  }
  pending_ = true;
  have_last_ = true;
  if (first_after_process || previous_call_pid_ != pid) {
    keep_for_routing(group_);
    if (kept_bytes_ > max_kept_) {
      return false;
    }
  }
  previous_call_pid_ = pid;

  if (kind != sprtrace::kCallAlloc && kind != sprtrace::kCallFree) {
    return true;
  }
  const std::optional<std::uint32_t> process = process_of(pid);
  if (!process) {
    return false;
  }
  const std::uint32_t type = effective_resource_type(resource_type);
  if (stop_ != nullptr && !PackedKeySet::fits({.id = id, .type = type})) [[unlikely]] {
    abandoned_ = true;  // the second half's table could not keep it: the first goes on alone
    return false;
  }
  events_.push_back(Event{.id = id,
                          .hash = live_.hash(id, type),
                          .offset = offset,
                          .index = group_.index,
                          .type = type,
                          .process = static_cast<std::uint16_t>(*process),
                          .alloc = kind == sprtrace::kCallAlloc});
  event_pending_ = true;
  return true;
}

// The leaks stage's rule on a batch of allocations and releases, in call order (on the worker).
void Scanner::apply_events(std::vector<Event>& events) {
  const Event* const event = events.data();
  const std::size_t count = events.size();
  for (std::size_t i = 0; i < std::min(kPrefetchDistance, count); ++i) {
    live_.prefetch(event[i].process, event[i].hash, event[i].alloc);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) {
      const Event& ahead = event[i + kPrefetchDistance];
      live_.prefetch(ahead.process, ahead.hash, ahead.alloc);
    }
    const Event& e = event[i];
    const std::uint64_t hash = e.hash;
    if (e.alloc) {
      std::uint32_t replaced = LiveTable::kNone;
      if (std::uint32_t* slot =
              live_.allocate(e.id, e.type, e.process, refcounted(e.type), hash, replaced)) {
        if (replaced != LiveTable::kNone) [[unlikely]] {
          leaked_.push_back(replaced);  // never freed: its slot stays
        }
        *slot = new_slot(e);
      }
    } else if (const std::uint32_t slot =
                   live_.release(e.id, e.type, e.process, refcounted(e.type), hash);
               slot != LiveTable::kNone) {
      free_slots_.push_back(slot);
      __builtin_prefetch(&slots_[slot], 1);  // the next allocation writes it
    }
  }
}

// ARGS and BTRC of the pending call: checked as the reader reads them, their contents skipped.
bool Scanner::call_part(std::uint32_t type, const std::uint8_t* data, std::size_t size) {
  if (size < 4) {
    return false;
  }
  const std::uint32_t count = load_u32(data, false);
  if (type == type_of(PacketType::Backtrace)) {
    return std::uint64_t{count} * pointer_size_ <= size - 4;
  }
  if (std::uint64_t{count} * 4 > size - 4) {
    return false;
  }
  std::size_t pos = 4;
  for (std::uint64_t i = 0; i < std::uint64_t{count} * 2; ++i) {
    const std::optional<std::size_t> next = skip_string(data, size, pos);
    if (!next) {
      return false;
    }
    pos = *next;
  }
  return true;
}

// Any packet that is not part of a call is decoded by the second pass; the scan only follows
// the processes and the refcounted resource types.
bool Scanner::other(std::uint32_t type, const std::uint8_t* data, std::size_t size,
                    std::uint64_t offset, std::uint64_t length) {
  if (stop_ != nullptr && type == type_of(PacketType::ProcessInfo)) {
    abandoned_ = true;  // the second half knows one process: the first half goes on alone
    return false;
  }
  if (!close_group()) {
    return false;
  }
  after_process_info_ = false;
  if (have_last_ && !group_.kept_for_routing) {
    keep_for_routing(group_);
  }
  have_last_ = false;
  if (type == type_of(PacketType::ProcessInfo)) {
    if (size < 4) {
      return false;
    }
    pid_ = load_u32(data, false);
    first_pid_ = first_pid_.value_or(pid_);
    after_process_info_ = true;
  } else if (type == type_of(PacketType::ResourceRegistry)) {
    if (size < 8) {
      return false;
    }
    ResourceType resource;
    resource.id = load_u32(data, false);
    resource.flags = load_u32(data + 4, false);
    if (resource.refcounted()) {
      // A type that becomes refcounted after calls of it could make the leaks stage drop an
      // allocation the scan keeps (it sees fewer calls): the general path decides.
      if (calls_ != 0) {
        return false;
      }
      refcounted_.push_back(effective_resource_type(resource.id));
    }
  }
  return keep({.offset = offset, .length = length});
}

// False once the worker failed: the scan gives up (the general path decides).
bool Scanner::close_group() {
  const bool event = pending_ && event_pending_;
  pending_ = false;
  event_pending_ = false;
  if (event) {
    const std::uint64_t length = group_.end - group_.offset;
    if (length > std::numeric_limits<std::uint32_t>::max()) {
      return false;
    }
    events_.back().length = static_cast<std::uint32_t>(length);
    if (events_.size() >= batch_) {
      return worker_->hand_over(events_);
    }
  }
  return true;
}

void Scanner::keep_for_routing(Group& group) {
  group.kept_for_routing = true;
  kept_bytes_ += group.call_length;
  routing_calls_.push_back({.offset = group.offset,
                            .length = group.call_length,
                            .call_index = group.index,
                            .routing_only = true});
}

bool Scanner::keep(LeaksScanPiece piece) {
  kept_bytes_ += piece.length;
  pieces_.push_back(piece);
  return kept_bytes_ <= max_kept_;
}

std::optional<std::uint32_t> Scanner::find_process(std::uint32_t pid) {
  const auto found = std::find(processes_.begin(), processes_.end(), pid);
  if (found == processes_.end() && processes_.size() == kMaxProcesses) {
    return std::nullopt;
  }
  current_ = static_cast<std::uint32_t>(found - processes_.begin());
  if (found == processes_.end()) {
    processes_.push_back(pid);
  }
  return current_;
}

std::uint32_t Scanner::new_slot(const Event& event) {
  const Candidate candidate{.offset = event.offset, .index = event.index, .length = event.length};
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = candidate;
    return slot;
  }
  slots_.push_back(candidate);
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

// The blocks alive at the end and those that leaked, their call indices counted from `base`.
void Scanner::add_survivors(std::vector<LeaksScanPiece>& calls, std::uint64_t base) const {
  const auto add = [&](std::uint32_t slot) {
    const Candidate& c = slots_[slot];
    calls.push_back({.offset = c.offset, .length = c.length, .call_index = c.index + base});
  };
  live_.for_each_candidate(add);
  for (const std::uint32_t slot : leaked_) {
    add(slot);
  }
}

// A survivor before a routing call at the same offset (then the same call): it is kept. (A
// lambda, not a function: the sorts inline it.)
constexpr auto by_offset = [](const LeaksScanPiece& a, const LeaksScanPiece& b) {
  return a.offset != b.offset ? a.offset < b.offset : !a.routing_only && b.routing_only;
};

// Drops the second of two pieces at the same offset: a survivor that is also a routing call is
// delivered whole, once. (Iterator algorithms: clang 14, which builds the fuzzers, rejects
// libstdc++ 12's ranges here.)
void drop_repeated(std::vector<LeaksScanPiece>& calls) {
  calls.erase(std::unique(calls.begin(), calls.end(),
                          [](const LeaksScanPiece& a, const LeaksScanPiece& b) {
                            return a.offset == b.offset;
                          }),
              calls.end());
}

// Routing calls and survivors in file order, each call once.
void Scanner::sort_calls(std::vector<LeaksScanPiece>& calls) {
  std::sort(calls.begin(), calls.end(), by_offset);
  drop_repeated(calls);
}

// The packets kept, the surviving allocations (whole, with their ARGS and BTRC) and the routing
// calls that are not survivors, in file order. The second half's calls were sorted on its thread.
LeaksScan Scanner::result() {
  LeaksScan scan{.file_size = offset_, .pieces = {}, .second_half = joined_ ? second_start_ : 0};
  scan.pieces = std::move(pieces_);
  std::vector<LeaksScanPiece> calls = std::move(routing_calls_);
  add_survivors(calls, 0);
  std::sort(calls.begin(), calls.end(), by_offset);
  if (joined_) {
    Scanner& second = *second_->scanner;
    scan.pieces.insert(scan.pieces.end(), second.pieces_.begin(), second.pieces_.end());
    for (LeaksScanPiece& piece : second.calls_kept_) {
      piece.call_index += second_base_;
    }
    // Only the second half's first call can be in both (a routing call the join added).
    const auto middle = static_cast<std::ptrdiff_t>(calls.size());
    calls.insert(calls.end(), second.calls_kept_.begin(), second.calls_kept_.end());
    std::inplace_merge(calls.begin(), calls.begin() + middle, calls.end(), by_offset);
  }
  drop_repeated(calls);
  std::vector<LeaksScanPiece> merged;
  merged.reserve(scan.pieces.size() + calls.size());
  std::merge(scan.pieces.begin(), scan.pieces.end(), calls.begin(), calls.end(),
             std::back_inserter(merged),
             [](const LeaksScanPiece& a, const LeaksScanPiece& b) { return a.offset < b.offset; });
  scan.pieces = std::move(merged);
  return scan;
}

}  // namespace

std::optional<LeaksScan> scan_binary_leaks(MappedFile& mapped, std::uint64_t max_kept_bytes,
                                           Progress* progress, const LeaksScanSplit& split) {
  std::optional<LeaksScan> scan = Scanner(mapped, max_kept_bytes, progress, split).run();
  if (scan) {
    std::uint64_t kept = 0;
    for (const LeaksScanPiece& piece : scan->pieces) {
      kept += piece.length;
    }
    if (kept > max_kept_bytes) {
      return std::nullopt;
    }
  }
  return scan;
}

}  // namespace rtrace
