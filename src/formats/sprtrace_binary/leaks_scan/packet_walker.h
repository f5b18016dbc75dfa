// The leaks scan's walk over the packets of an sp-rtrace binary file (leaks_scan.h): it reads
// only what decides which allocations are still alive at the end (a CALL's kind, resource type,
// resource id and process; the refcount flag of the resource types), checks every ARGS and BTRC
// body as the reader does and skips it, and notes the stretches the second pass decodes. The
// allocations and releases it finds go, in batches, to a worker that applies them to the live
// table (live_calls.h). One walker per half of the file (two_halves.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "formats/sprtrace_binary/leaks_scan/batch_worker.h"
#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"
#include "formats/sprtrace_binary/leaks_scan/live_calls.h"
#include "formats/sprtrace_binary/leaks_scan/scan_event.h"
#include "protocol/sprtrace_framing.h"

namespace rtrace {
class MappedFile;
class Progress;
}  // namespace rtrace

namespace rtrace::leaks_scan {

// The largest packet the reader accepts, header included.
inline constexpr std::uint64_t kMaxPacket = sprtrace::kMaxPacketSize;
// The only layout the scan reads (2.0, this machine's byte order; read_handshake() checks it):
// a constant, so that every header parse folds to two loads.
inline constexpr const sprtrace::Layout& kScanLayout = sprtrace::kNativeLayout;

// The mapped file as the walk may read it: only the bytes readable() vouched for.
struct VouchedFile {
  MappedFile& mapped;
  const std::uint8_t* bytes;  // the mapping: trust only [0, vouched)
  std::uint64_t size;
  std::uint64_t vouched = 0;  // MappedFile::readable() vouched for the bytes before this
  // The second half's: set by the first half when it no longer wants the result; null on the
  // first half, the one thread that asks readable().
  const std::atomic<bool>* stop = nullptr;

  bool vouch(std::uint64_t end);
};

// The call whose ARGS and BTRC packets may follow.
struct CallGroup {
  std::uint64_t offset = 0;
  std::uint64_t call_length = 0;  // of the CALL packet alone
  std::uint64_t end = 0;
  std::uint64_t index = 0;
  bool kept_for_routing = false;
};

// What the second pass decodes, as found so far, and how many bytes that is.
struct KeptPieces {
  explicit KeptPieces(std::uint64_t max) : max_bytes(max) {}

  std::uint64_t max_bytes;
  std::uint64_t bytes = 0;
  std::vector<LeaksScanPiece> pieces;  // the handshake and every packet not part of a call
  std::vector<LeaksScanPiece> routing_calls;

  // False when more than max_bytes are kept.
  bool keep(LeaksScanPiece piece);
  void keep_for_routing(CallGroup& group);
};

// The process of each call, as PidSplit routes it (the pid of the last PINF, else the first
// PINF's), and the scan's number for it (the live table keys its blocks with).
struct ProcessRouting {
  // At most this many processes (PidSplit's own limit is 512); more: the general path.
  static constexpr std::size_t kMaxProcesses = 256;

  std::uint32_t pid = 0;  // of the last PINF, as the reader gives it to calls
  std::optional<std::uint32_t> first_pid;
  bool after_process_info = false;
  std::optional<std::uint32_t> previous_call_pid;
  std::vector<std::uint32_t> processes;  // pids, by the number the table keys them with
  std::uint32_t current = 0;             // the process of the call before

  std::uint32_t call_pid() const { return pid != 0 ? pid : first_pid.value_or(0); }
  // The table's number for `pid`; nothing when there are too many processes. The call before's
  // process inline, the others out of line (the loop over packets keeps its registers).
  std::optional<std::uint32_t> number_of(std::uint32_t pid) {
    if (current < processes.size() && processes[current] == pid) [[likely]] {
      return current;
    }
    return find(pid);
  }
  [[gnu::noinline]] std::optional<std::uint32_t> find(std::uint32_t pid);
};

class PacketWalker {
 public:
  // How far a walk went: to its limit, to a packet across it (the limit was no packet boundary),
  // or not (the general path must read the trace).
  enum class Walk { Done, Overran, GaveUp };

  // The first half's walker, from the start of the file; its bytes are counted into `progress`
  // when not null.
  PacketWalker(MappedFile& mapped, std::uint64_t max_kept_bytes, Progress* progress,
               LiveCalls& table);
  // The second half's, from `start` (a CALL packet) to the end, on its own thread: it reads the
  // part of the file that `first` vouched for, until `stop` is set.
  PacketWalker(const PacketWalker& first, std::uint64_t start, const std::atomic<bool>& stop,
               LiveCalls& table);
  PacketWalker(const PacketWalker&) = delete;
  PacketWalker& operator=(const PacketWalker&) = delete;

  // Starts the worker that applies the batches to the table: on a thread of its own with
  // `own_thread`, else on the walker's.
  void start_worker(bool own_thread);
  // Waits for the worker; rethrows what applying a batch threw (out of memory).
  void finish_worker();

  // As the reader checks it; only version 2.0 in the machine's byte order is scanned.
  bool read_handshake();
  // Every packet from offset() to `limit` (the file's end, or where the second half starts).
  Walk walk_to(std::uint64_t limit);
  // Ends the pending call and hands the last batch over; false once the worker failed.
  bool flush();

  std::uint64_t offset() const { return offset_; }
  const VouchedFile& file() const { return file_; }
  const KeptPieces& kept() const { return kept_; }
  KeptPieces& kept() { return kept_; }
  const ProcessRouting& routing() const { return routing_; }
  std::uint64_t calls() const { return calls_; }
  // The second half's: whether it met what the join cannot take (a PINF, a key the released
  // set cannot hold); and the length of the CALL packet it started at.
  bool abandoned() const { return abandoned_; }
  std::uint64_t first_call_length() const { return first_call_length_; }

  // The join of the halves, once this walk landed where `second` started: the call there is a
  // routing call when the call before or a PINF just before says so (when `second` did not
  // keep it already).
  void route_first_call_of(const PacketWalker& second, bool second_kept_it);
  // The join: this walk's process number for the calls of `second` (which met no PINF).
  std::optional<std::uint32_t> current_process() { return routing_.number_of(routing_.call_pid()); }
  // The join: goes on where `second` ended, its calls and bytes counted; false when that keeps
  // too many bytes.
  bool take_over(const PacketWalker& second);

 private:
  // The loop over the packets and what it calls for each packet, inlined into one function (its
  // state stays in registers): the walk costs ~17 % more instructions when they are calls. They
  // are defined in packet_walker.cpp, the one file that calls them.
  [[gnu::always_inline]] inline bool walk_vouched(std::uint64_t limit);
  [[gnu::always_inline]] inline bool packet(std::uint32_t type, const std::uint8_t* data,
                                            std::size_t size, std::uint64_t offset);
  [[gnu::always_inline]] inline bool call(const std::uint8_t* data, std::size_t size,
                                          std::uint64_t offset, std::uint64_t length);
  [[gnu::always_inline]] inline bool add_event(Address id, std::uint32_t resource_type,
                                               std::uint32_t kind, std::uint32_t pid,
                                               std::uint64_t offset);
  [[gnu::always_inline]] inline bool call_part(std::uint32_t type, const std::uint8_t* data,
                                               std::size_t size);
  [[gnu::always_inline]] inline bool other(std::uint32_t type, const std::uint8_t* data,
                                           std::size_t size, std::uint64_t offset,
                                           std::uint64_t length);
  bool resource_registry(const std::uint8_t* data, std::size_t size);
  [[gnu::always_inline]] inline bool close_group();
  bool second_half() const { return file_.stop != nullptr; }

  VouchedFile file_;
  std::uint64_t offset_ = 0;  // of the next packet
  Progress* progress_;        // or nullptr
  std::uint8_t pointer_size_ = 8;
  KeptPieces kept_;
  ProcessRouting routing_;
  std::uint64_t calls_ = 0;
  std::uint64_t first_call_length_ = 0;  // of the CALL packet the walk met first
  bool abandoned_ = false;

  bool pending_ = false;  // a call whose ARGS and BTRC may follow
  CallGroup group_;
  bool have_last_ = false;  // group_ is the last call before the current packet
  // The pending call allocates or releases: it is events_.back(), its length still that of its
  // CALL packet.
  bool event_pending_ = false;
  ScanBatch events_;  // the batch being filled

  LiveCalls& table_;
  // Declared last: destroyed (joined) first, before the batch it may hold.
  std::optional<BatchWorker<ScanBatch>> worker_;
};

}  // namespace rtrace::leaks_scan
