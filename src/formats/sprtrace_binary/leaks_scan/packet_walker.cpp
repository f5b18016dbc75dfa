#include "formats/sprtrace_binary/leaks_scan/packet_walker.h"

#include <algorithm>
#include <bit>
#include <exception>
#include <limits>
#include <utility>

#include "filters/live_resources.h"
#include "formats/sprtrace_binary/leaks_scan/packed_key_set.h"
#include "io/mapped_file.h"
#include "io/progress.h"
#include "protocol/byte_loads.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace::leaks_scan {
namespace {

using sprtrace::load_u16;
using sprtrace::load_u32;
using sprtrace::load_u64;
using sprtrace::PacketType;

// A mapped file is vouched for (MappedFile::readable(), an fstat) this much at a time.
constexpr std::size_t kMappedStep = std::size_t{4} << 20;
static_assert(ProcessRouting::kMaxProcesses <= 65536,
              "a process number is 16 bits in the scan's events");

constexpr std::uint32_t type_of(PacketType type) {
  return static_cast<std::uint32_t>(type);
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

}  // namespace

// Whether the mapping's first `end` bytes are the file's (end <= size), asking readable() for
// kMappedStep or more at a time (each asks fstat()).
bool VouchedFile::vouch(std::uint64_t end) {
  if (end <= vouched) {
    return true;
  }
  if (stop != nullptr) {
    // The second half: the whole file was vouched for before its thread started (readable()
    // is the first half's alone); here it only looks whether the first half still wants it.
    if (stop->load(std::memory_order_relaxed)) {
      return false;
    }
    vouched = std::min(size, std::max(end, vouched + kMappedStep));
    return true;
  }
  const std::uint64_t want =
      std::min(std::max(end - vouched, std::uint64_t{kMappedStep}), size - vouched);
  vouched += mapped.readable(vouched, static_cast<std::size_t>(want));
  return end <= vouched;
}

bool KeptPieces::keep(LeaksScanPiece piece) {
  bytes += piece.length;
  pieces.push_back(piece);
  return bytes <= max_bytes;
}

void KeptPieces::keep_for_routing(CallGroup& group) {
  group.kept_for_routing = true;
  bytes += group.call_length;
  routing_calls.push_back({.offset = group.offset,
                           .length = group.call_length,
                           .call_index = group.index,
                           .routing_only = true});
}

std::optional<std::uint32_t> ProcessRouting::find(std::uint32_t wanted) {
  const auto found = std::find(processes.begin(), processes.end(), wanted);
  if (found == processes.end() && processes.size() == kMaxProcesses) {
    return std::nullopt;
  }
  current = static_cast<std::uint32_t>(found - processes.begin());
  if (found == processes.end()) {
    processes.push_back(wanted);
  }
  return current;
}

PacketWalker::PacketWalker(MappedFile& mapped, std::uint64_t max_kept_bytes, Progress* progress,
                           LiveCalls& table)
    : file_{.mapped = mapped, .bytes = mapped.bytes().data(), .size = mapped.size()},
      progress_(progress),
      kept_(max_kept_bytes),
      table_(table) {}

PacketWalker::PacketWalker(const PacketWalker& first, std::uint64_t start,
                           const std::atomic<bool>& stop, LiveCalls& table)
    : file_{.mapped = first.file_.mapped,
            .bytes = first.file_.bytes,
            .size = first.file_.size,
            .vouched = start,
            .stop = &stop},
      offset_(start),
      progress_(nullptr),
      pointer_size_(first.pointer_size_),
      kept_(first.kept_.max_bytes),
      table_(table) {
  routing_.previous_call_pid = 0;  // its calls' pid until a PINF, which ends the split
}

void PacketWalker::start_worker(bool own_thread) {
  worker_.emplace([&table = table_](ScanBatch& events) { table.apply(events); }, own_thread);
}

// What applying a batch threw on the worker is thrown here, as if the scan ran on one thread:
// the tool reports it instead of reading the trace again.
void PacketWalker::finish_worker() {
  if (!worker_->finish()) {
    std::rethrow_exception(worker_->error());
  }
}

bool PacketWalker::flush() {
  return close_group() && worker_->hand_over(events_);
}

// Only the usual trace is scanned: version 2.0 in this machine's byte order (what rtrace's and
// the original's tracers write); the general path reads every other.
bool PacketWalker::read_handshake() {
  const std::size_t head = std::min<std::size_t>(file_.size, sprtrace::kMaxHandshakeSize);
  if (!file_.vouch(head)) {
    return false;
  }
  const sprtrace::HandshakeParse parsed = sprtrace::parse_handshake({file_.bytes, head});
  if (parsed.status != sprtrace::ParseStatus::Complete) {
    return false;
  }
  const sprtrace::Handshake& handshake = parsed.handshake;
  if (handshake.major != sprtrace::kWrittenMajor || handshake.minor != sprtrace::kWrittenMinor ||
      sprtrace::layout_of(handshake).swap) {
    return false;
  }
  pointer_size_ = handshake.pointer_size;
  offset_ = parsed.size;
  return kept_.keep({.offset = 0, .length = parsed.size});
}

PacketWalker::Walk PacketWalker::walk_to(std::uint64_t limit) {
  const std::uint64_t size = file_.size;
  while (offset_ < limit) {
    if (size - offset_ < sprtrace::kPacketHeaderSize) {
      return Walk::GaveUp;  // a truncated end: the general path warns of it
    }
    if (!file_.vouch(offset_ + sprtrace::kPacketHeaderSize)) {
      return Walk::GaveUp;  // cut short meanwhile
    }
    const sprtrace::PacketFrame frame = sprtrace::parse_packet_header(
        {file_.bytes + offset_, sprtrace::kPacketHeaderSize}, kScanLayout, offset_, kMaxPacket);
    if (frame.status != sprtrace::ParseStatus::Complete) {
      return Walk::GaveUp;  // a second trace, or a size no reader takes: the general path says so
    }
    const std::uint64_t total = frame.total;
    if (total > size - offset_ || !file_.vouch(offset_ + total)) {
      return Walk::GaveUp;
    }
    if (total > limit - offset_) {
      return Walk::Overran;
    }
    if (!walk_vouched(limit)) {
      return Walk::GaveUp;
    }
  }
  return Walk::Done;
}

// The packets wholly in the part vouched for, the first of which is known to be: readable() is
// asked again only when the next packet runs past it. False when a packet makes the scan give up.
bool PacketWalker::walk_vouched(std::uint64_t limit) {
  const std::uint8_t* const start = file_.bytes + offset_;
  // No more than the largest packet the reader accepts: a packet wholly inside is never larger
  // (walk_to() refuses the larger ones), at no cost per packet.
  const std::size_t available = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::min(file_.vouched, limit) - offset_, kMaxPacket));
  std::size_t pos = 0;
  while (true) {
    const sprtrace::PacketFrame frame = sprtrace::parse_packet(
        {start + pos, available - pos}, kScanLayout, offset_ + pos, kMaxPacket);
    if (frame.status != sprtrace::ParseStatus::Complete) {
      break;  // not wholly here, or not a packet to scan: walk_to() decides
    }
    if (!packet(frame.type, start + pos + sprtrace::kPacketHeaderSize,
                static_cast<std::size_t>(frame.data_size), offset_ + pos)) {
      return false;
    }
    pos += static_cast<std::size_t>(frame.total);
  }
  offset_ += pos;
  if (progress_ != nullptr) {
    progress_->advance(pos);  // once a stretch vouched for: a few dozen times for a large file
  }
  return true;
}

bool PacketWalker::packet(std::uint32_t type, const std::uint8_t* data, std::size_t size,
                          std::uint64_t offset) {
  const std::uint64_t length = size + sprtrace::kPacketHeaderSize;
  if (type == type_of(PacketType::FunctionCall)) {
    return call(data, size, offset, length);  // reads and clears after_process_info
  }
  if (pending_ &&
      (type == type_of(PacketType::FunctionArgs) || type == type_of(PacketType::Backtrace) ||
       type == type_of(PacketType::CallSize))) {
    group_.end = offset + length;
    return call_part(type, data, size);
  }
  return other(type, data, size, offset, length);
}

// CALL (2.0): resource type, context, timestamp, kind, name, size, resource id.
bool PacketWalker::call(const std::uint8_t* data, std::size_t size, std::uint64_t offset,
                        std::uint64_t length) {
  if (!close_group()) {
    return false;
  }
  const bool first_after_process = std::exchange(routing_.after_process_info, false);
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

  const std::uint32_t pid = routing_.call_pid();
  group_ =
      CallGroup{.offset = offset, .call_length = length, .end = offset + length, .index = ++calls_};
  if (calls_ == 1) {
    first_call_length_ = length;
  }
  pending_ = true;
  have_last_ = true;
  if (first_after_process || routing_.previous_call_pid != pid) {
    kept_.keep_for_routing(group_);
    if (kept_.bytes > kept_.max_bytes) {
      return false;
    }
  }
  routing_.previous_call_pid = pid;

  if (kind != sprtrace::kCallAlloc && kind != sprtrace::kCallFree) {
    return true;
  }
  return add_event(id, resource_type, kind, pid, offset);
}

// An allocation or release of the pending call, for the next batch.
bool PacketWalker::add_event(Address id, std::uint32_t resource_type, std::uint32_t kind,
                             std::uint32_t pid, std::uint64_t offset) {
  const std::optional<std::uint32_t> process = routing_.number_of(pid);
  if (!process) {
    return false;
  }
  const std::uint32_t type = effective_resource_type(resource_type);
  if (second_half() && !PackedKeySet::fits({.id = id, .type = type})) [[unlikely]] {
    abandoned_ = true;  // the second half's table could not keep it: the first goes on alone
    return false;
  }
  events_.push_back(ScanEvent{.id = id,
                              .hash = table_.hash(id, type),
                              .offset = offset,
                              .index = group_.index,
                              .type = type,
                              .process = static_cast<std::uint16_t>(*process),
                              .alloc = kind == sprtrace::kCallAlloc});
  event_pending_ = true;
  return true;
}

// ARGS, BTRC and RSIZ of the pending call: checked as the reader reads them, their contents
// skipped (RSIZ's size is the second pass's to check and take, with its CALL).
bool PacketWalker::call_part(std::uint32_t type, const std::uint8_t* data, std::size_t size) {
  if (type == type_of(PacketType::CallSize)) {
    return size >= sprtrace::kCallSizeSize;
  }
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

// Any packet that is not part of a call is decoded by the second pass; the walk only follows
// the processes and the refcounted resource types.
bool PacketWalker::other(std::uint32_t type, const std::uint8_t* data, std::size_t size,
                         std::uint64_t offset, std::uint64_t length) {
  if (second_half() && type == type_of(PacketType::ProcessInfo)) {
    abandoned_ = true;  // the second half knows one process: the first half goes on alone
    return false;
  }
  if (!close_group()) {
    return false;
  }
  routing_.after_process_info = false;
  if (have_last_ && !group_.kept_for_routing) {
    kept_.keep_for_routing(group_);
  }
  have_last_ = false;
  if (type == type_of(PacketType::ProcessInfo)) {
    if (size < 4) {
      return false;
    }
    routing_.pid = load_u32(data, false);
    routing_.first_pid = routing_.first_pid.value_or(routing_.pid);
    routing_.after_process_info = true;
  } else if (type == type_of(PacketType::ResourceRegistry) && !resource_registry(data, size)) {
    return false;
  }
  return kept_.keep({.offset = offset, .length = length});
}

bool PacketWalker::resource_registry(const std::uint8_t* data, std::size_t size) {
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
    table_.add_refcounted(effective_resource_type(resource.id));
  }
  return true;
}

// False once the worker failed: the scan gives up (the general path decides).
bool PacketWalker::close_group() {
  const bool event = pending_ && event_pending_;
  pending_ = false;
  event_pending_ = false;
  if (event) {
    const std::uint64_t length = group_.end - group_.offset;
    if (length > std::numeric_limits<std::uint32_t>::max()) {
      return false;
    }
    events_.back().length = static_cast<std::uint32_t>(length);
    if (events_.size() >= kScanBatch) {
      return worker_->hand_over(events_);
    }
  }
  return true;
}

void PacketWalker::route_first_call_of(const PacketWalker& second, bool second_kept_it) {
  if ((routing_.after_process_info || routing_.previous_call_pid != routing_.call_pid()) &&
      !second_kept_it) {
    // This walk ended where the second half started.
    CallGroup first{.offset = offset_,
                    .call_length = second.first_call_length_,
                    .end = offset_ + second.first_call_length_,
                    .index = calls_ + 1};
    kept_.keep_for_routing(first);
  }
}

bool PacketWalker::take_over(const PacketWalker& second) {
  kept_.bytes += second.kept_.bytes;
  if (kept_.bytes > kept_.max_bytes) {
    return false;
  }
  calls_ += second.calls_;
  if (progress_ != nullptr) {
    progress_->advance(second.offset_ - offset_);
  }
  offset_ = second.offset_;
  return true;
}

}  // namespace rtrace::leaks_scan
