#include "formats/sprtrace_binary/binary_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "formats/declared_once.h"
#include "formats/sprtrace_binary/handshake.h"
#include "protocol/sprtrace_framing.h"
#include "protocol/sprtrace_handshake.h"
#include "protocol/sprtrace_packet_cursor.h"
#include "protocol/sprtrace_packets.h"

// What the original tools really wrote, where the protocol document is silent or wrong (learnt
// from the sources of the sp-rtrace tracer and post-processor, 1.x and 2.0, and from the fixtures):
//  - Packet headers: [type][size] from 2.0 with size = data bytes; [size][type] before, with
//    size = data bytes + 4 (the 1.x tracer stored "bytes after the size field").
//  - CALL: from 2.0 the fields are resource type, context, timestamp, call kind, name,
//    size (dword), resource id (pointer) (NOTES.md). Before 2.0 we read the protocol document's
//    order (timestamp, resource type, context, kind, name, id, size): the documents are the
//    ground truth wherever NOTES.md does not name a difference.
//    (Development snapshots of 1.0 without the resource type field, with 2-letter packet types or
//    with a mistyped packet-type macro are not supported.)
//  - The tracer writes ARGS (if any) and then BTRC after every CALL, an empty BTRC (count 0) when
//    it took no backtrace; the post-processor attaches both to the CALL before them.
//  - HINF holds heap bottom and heap top, then ten mallinfo dwords (arena ... keepcost). The
//    lowest/highest block of HeapInfo exist only in text traces. The 2.0 tracer stores bottom
//    and top as dwords even with 8-byte pointers (a 48-byte packet): both layouts are read.
//  - PINF has the backtrace depth from 1.2; RESR has its flags from 1.3; FILE appeared in 1.4.
//  - NLIB goes only from the tracer to the recorder; a file holding one is read past silently.
//  - rtrace's extensions (sprtrace_packets.h, docs/protocol-extensions.md): RCMD follows the PINF
//    of its process and completes it (the process record is held until the next packet); REND
//    ends the trace of a process.

namespace rtrace {
namespace {

using sprtrace::CorruptPacket;
using sprtrace::Layout;
using sprtrace::PacketCursor;
using sprtrace::PacketFrame;
using sprtrace::PacketType;
using sprtrace::ParseStatus;

// How much to ask of the input at once; packets are decoded in place from each such window.
constexpr std::size_t kReadAhead = std::size_t{256} << 10;
constexpr std::size_t kMaxPacket = InputStream::kMaxPeek;
static_assert(kMaxPacket == sprtrace::kMaxPacketSize, "the reader holds a whole packet");
constexpr std::size_t kHeapInfoDwords = 10;
constexpr std::uint64_t kNanosecondsPerMillisecond = 1'000'000;

enum class Step : std::uint8_t { Done, Incomplete, Stop };

// What a parser of protocol/ found wrong, as the reader words it.
std::string describe(const sprtrace::ParseProblem& problem) {
  switch (problem.what) {
    case sprtrace::Problem::NotAHandshake:
      return "not an sp-rtrace binary trace (no handshake)";
    case sprtrace::Problem::HandshakeTooShort:
      return "handshake too short for its fields";
    case sprtrace::Problem::UnsupportedVersion:
      return fmt::format("unsupported protocol version {}.{}", problem.first, problem.second);
    case sprtrace::Problem::UnknownByteOrder:
      return fmt::format("unknown byte order {}", problem.first);
    case sprtrace::Problem::UnsupportedPointerSize:
      return fmt::format("unsupported pointer size {}", problem.first);
    case sprtrace::Problem::ImpossiblePacketSize:
      return fmt::format("impossible packet size {}", problem.first);
    case sprtrace::Problem::None:
      break;
  }
  return "damaged";
}

// "0x4c4c4143 (CALL)" when the value spells letters, for messages.
std::string describe_type(std::uint32_t type) {
  std::string letters;
  for (int shift = 0; shift < 32; shift += 8) {
    const auto c = static_cast<unsigned char>(type >> shift);
    letters += std::isprint(c) != 0 ? static_cast<char>(c) : '?';
  }
  return fmt::format("{:#010x} ({})", type, letters);
}

CallKind call_kind(std::uint32_t code) {
  if (code == sprtrace::kCallFree) {
    return CallKind::Free;
  }
  if (code == sprtrace::kCallAlloc) {
    return CallKind::Alloc;
  }
  return CallKind::Other;
}

class BinaryReader {
 public:
  // LateMapsOnly: a first pass that only collects the memory maps after the first call.
  enum class Mode : std::uint8_t { Everything, LateMapsOnly };

  BinaryReader(InputStream& input, TraceSink& sink, Diagnostics& diagnostics,
               Mode mode = Mode::Everything)
      : input_(input), sink_(sink), diagnostics_(diagnostics), mode_(mode) {}

  void run();

 private:
  friend std::vector<Mapping> rtrace::read_late_maps(InputStream& input);
  bool wanted_for_late_maps(std::uint32_t type) const;
  std::size_t skip_unwanted(std::span<const std::uint8_t> bytes, std::size_t pos) const;
  std::size_t skip_unwanted_native(std::span<const std::uint8_t> bytes, std::size_t pos) const;
  void collect_late_map(std::uint32_t type, PacketCursor& packet);
  bool read_handshake();
  void read_packets();
  Step read_packet(std::span<const std::uint8_t> bytes, std::uint64_t offset, std::size_t& size);
  void dispatch(std::uint32_t type, PacketCursor& packet);

  void read_call(PacketCursor& packet);
  void read_arguments(PacketCursor& packet);
  void read_backtrace(PacketCursor& packet);
  void read_call_size(PacketCursor& packet);
  void read_process_info(PacketCursor& packet);
  void read_module(PacketCursor& packet);
  void read_mapping(PacketCursor& packet);
  void read_context(PacketCursor& packet);
  void read_resource_type(PacketCursor& packet);
  void read_heap_info(PacketCursor& packet);
  void read_output_settings(PacketCursor& packet);
  void read_attachment(PacketCursor& packet);
  void read_command_line(PacketCursor& packet);
  void read_trace_end(PacketCursor& packet);
  void deliver_process();
  void skip_unknown(std::uint32_t type, std::uint64_t offset);
  bool accept_call_part(const char* what, std::uint64_t offset);

  void deliver_call();
  void keep_call_text();
  void warn(std::uint64_t offset, std::string_view message) {
    diagnostics_.warning(input_.name(), offset, message);
  }

  InputStream& input_;
  TraceSink& sink_;
  Diagnostics& diagnostics_;
  Mode mode_;

  // LateMapsOnly: the memory maps after the first call (read_late_maps).
  std::vector<Mapping> late_maps_;
  bool seen_call_ = false;

  // The first trace's header is the stream's; the traces concatenated after it (`rtrace process`
  // writes a stream of several processes as one trace per process) add their processes and
  // declare their registries again, passed on once.
  bool header_delivered_ = false;
  DeclaredOnce declared_;

  // The handshake's version (its other fields are in layout_).
  std::uint8_t major_ = sprtrace::kWrittenMajor;
  std::uint8_t minor_ = sprtrace::kWrittenMinor;
  Layout layout_;

  // The call being assembled from CALL, ARGS and BTRC. Its strings point into the input buffer
  // until keep_call_text() copies them (only when the buffer is about to move).
  bool call_pending_ = false;
  CallRecord call_;
  std::vector<Argument> arguments_;
  std::size_t complete_arguments_ = 0;  // arguments_ of fully decoded ARGS packets
  // The pending call's frames are the first frame_count_ of frames_, which only grows: a call
  // overwrites the frames of the one before it instead of clearing and zeroing them again.
  std::vector<Frame> frames_;
  std::size_t frame_count_ = 0;
  std::vector<char> call_text_;  // a vector: swapping it never moves its characters
  std::vector<char> spare_text_;
  std::uint64_t call_count_ = 0;

  // Reused between packets so that their strings keep their capacity. The process is delivered
  // at the packet after its PINF, which may be its RCMD.
  ProcessInfo process_;
  bool process_pending_ = false;
  ModuleInfo module_;
  Mapping mapping_;
  ContextInfo context_;
  ResourceType resource_;
  OutputSettings settings_;
  Attachment attachment_;

  std::vector<std::uint32_t> unknown_types_;
  bool warned_orphan_ = false;
};

void BinaryReader::run() {
  try {
    if (read_handshake()) {
      read_packets();
    }
  } catch (const CorruptPacket& damage) {
    arguments_.resize(complete_arguments_);
    deliver_call();
    deliver_process();
    sink_.finish();
    throw InputError(input_.name(), damage.offset, damage.message);
  }
  deliver_call();
  deliver_process();
  sink_.finish();
}

// The packets the scan for late maps decodes: the first call, the processes (the maps' pid) and
// the maps.
bool BinaryReader::wanted_for_late_maps(std::uint32_t type) const {
  return type == static_cast<std::uint32_t>(PacketType::MemoryMap) ||
         type == static_cast<std::uint32_t>(PacketType::ProcessInfo) ||
         (type == static_cast<std::uint32_t>(PacketType::FunctionCall) && !seen_call_);
}

// Keeps the maps that come after the first call; nothing else is decoded.
void BinaryReader::collect_late_map(std::uint32_t type, PacketCursor& packet) {
  if (type == static_cast<std::uint32_t>(PacketType::FunctionCall)) {
    seen_call_ = true;
  } else if (type == static_cast<std::uint32_t>(PacketType::ProcessInfo)) {
    read_process_info(packet);  // the maps' pid
  } else if (type == static_cast<std::uint32_t>(PacketType::MemoryMap) && seen_call_ &&
             late_maps_.size() < kMaxLateMaps) {
    read_mapping(packet);
    late_maps_.push_back(mapping_);
  }
}

// The handshake (protocol/sprtrace_handshake.h), the file's or a concatenated trace's: a
// truncated one is a warning, anything else that is no handshake of a version this reader reads
// is an error at its offset.
bool BinaryReader::read_handshake() {
  const std::uint64_t at = input_.offset();
  std::span<const std::uint8_t> bytes = input_.peek(2);
  sprtrace::HandshakeParse parsed = sprtrace::parse_handshake(bytes);
  if (parsed.status == ParseStatus::NeedMore && bytes.size() >= 2) {
    bytes = input_.peek(parsed.size);  // the whole handshake, its size known from 2 bytes
    parsed = sprtrace::parse_handshake(bytes);
  }
  if (parsed.status == ParseStatus::NeedMore) {
    warn(at, "truncated handshake");
    return false;
  }
  if (parsed.status != ParseStatus::Complete) {
    throw CorruptPacket{at + parsed.problem.offset, describe(parsed.problem)};
  }
  const sprtrace::Handshake& handshake = parsed.handshake;
  major_ = handshake.major;
  minor_ = handshake.minor;
  layout_ = sprtrace::layout_of(handshake);
  if (mode_ == Mode::Everything && !header_delivered_) {
    sink_.header(sprtrace::header_from_handshake(handshake));
  }
  header_delivered_ = true;
  input_.consume(parsed.size);
  return true;
}

// Decodes as many packets as each window of buffered input holds, straight from the buffer.
void BinaryReader::read_packets() {
  std::size_t wanted = sprtrace::kPacketHeaderSize;
  for (;;) {
    const auto bytes = input_.peek(std::max(wanted, kReadAhead));
    if (bytes.empty()) {
      return;
    }
    if (bytes.size() < wanted) {
      warn(input_.offset(),
           fmt::format("truncated packet ({} of {} bytes); ignored", bytes.size(), wanted));
      return;
    }
    std::size_t pos = 0;
    for (;;) {
      if (mode_ == Mode::LateMapsOnly) {
        pos = skip_unwanted(bytes, pos);
      }
      std::size_t size = 0;
      const Step step = read_packet(bytes.subspan(pos), input_.offset() + pos, size);
      if (step == Step::Done) {
        pos += size;
        continue;
      }
      if (step == Step::Stop) {
        // The next trace of a concatenation: what the last one held is delivered, then its
        // handshake read (the byte order and pointer size may differ).
        input_.consume(pos);
        deliver_call();
        deliver_process();
        seen_call_ = false;
        if (!read_handshake()) {
          return;
        }
        pos = 0;
        wanted = sprtrace::kPacketHeaderSize;
        break;
      }
      wanted = size;
      break;
    }
    input_.consume(pos);
    keep_call_text();  // the next peek may move the buffer
  }
}

// The scan for late maps (LateMapsOnly) reads every packet's header but decodes a handful of
// packets: this walks the ones it skips from `pos`, header by header, and returns where the next
// packet starts that read_packet() must see (one the scan decodes, an incomplete or an
// impossible one, a handshake byte). read_packet() would skip the same packets, in four times the
// instructions.
std::size_t BinaryReader::skip_unwanted(std::span<const std::uint8_t> bytes,
                                        std::size_t pos) const {
  if (std::endian::native == std::endian::little && layout_.type_first && !layout_.swap &&
      !layout_.big_endian) {
    return skip_unwanted_native(bytes, pos);
  }
  for (;;) {
    const PacketFrame frame =
        sprtrace::parse_packet(bytes.subspan(pos), layout_, input_.offset() + pos, kMaxPacket);
    if (frame.status != ParseStatus::Complete || wanted_for_late_maps(frame.type)) {
      return pos;
    }
    pos += static_cast<std::size_t>(frame.total);
  }
}

// For the first byte of a packet in the usual trace, whether skip_unwanted_native() must look at
// the packet's whole type: kMayStop for the types it stops at (MMAP, PINF and MINF, which shares
// MMAP's letter) and the handshake byte, kMayStopBeforeCall also for CALL (and CTXR) until the
// first call. One table lookup rules out the packets it skips (CALL, BTRC, ARGS) in all but
// those rare cases.
constexpr std::uint8_t kMayStop = 1;
constexpr std::uint8_t kMayStopBeforeCall = 2;
constexpr std::array<std::uint8_t, 256> kStopLetters = [] {
  std::array<std::uint8_t, 256> letters{};
  const auto letter = [](PacketType type) { return static_cast<std::uint32_t>(type) & 0xFF; };
  letters[letter(PacketType::MemoryMap)] = kMayStop;
  letters[letter(PacketType::ProcessInfo)] = kMayStop;
  letters[sprtrace::kHandshakeId] = kMayStop;
  letters[letter(PacketType::FunctionCall)] = kMayStopBeforeCall;
  return letters;
}();

// skip_unwanted() for the usual trace (2.0, written in this machine's byte order, so that
// sprtrace::canonical_type() keeps every type as it stands) on a little-endian machine, where a
// packet's first byte is its type's low byte: a table lookup of that byte, then the whole type only
// when the table says so. A packet longer than kMaxPacket, which read_packet() refuses, is left to
// it as one that does not fit: the walk never looks beyond kMaxPacket bytes.
std::size_t BinaryReader::skip_unwanted_native(std::span<const std::uint8_t> bytes,
                                               std::size_t pos) const {
  constexpr auto kMap = static_cast<std::uint32_t>(PacketType::MemoryMap);
  constexpr auto kProcess = static_cast<std::uint32_t>(PacketType::ProcessInfo);
  const std::uint32_t call = static_cast<std::uint32_t>(PacketType::FunctionCall);
  const std::uint8_t stop_mask = seen_call_ ? kMayStop : kMayStop | kMayStopBeforeCall;
  const std::uint8_t* data = bytes.data();
  const std::size_t size = std::min(bytes.size(), kMaxPacket);
  while (size - pos >= sprtrace::kPacketHeaderSize) {
    std::uint64_t header = 0;  // type, then the data size
    std::memcpy(&header, data + pos, sizeof header);
    const std::size_t total = sprtrace::kPacketHeaderSize + static_cast<std::size_t>(header >> 32);
    if (total > size - pos) {
      break;
    }
    if ((kStopLetters[data[pos]] & stop_mask) != 0) {
      const auto type = static_cast<std::uint32_t>(header);
      if (type == kMap || type == kProcess || data[pos] == sprtrace::kHandshakeId ||
          (type == call && !seen_call_)) {
        break;
      }
    }
    pos += total;
  }
  return pos;
}

// One packet at the front of `bytes`. Done: `size` is the packet's length. Incomplete: `size`
// is how many bytes the packet needs.
Step BinaryReader::read_packet(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                               std::size_t& size) {
  const PacketFrame frame = sprtrace::parse_packet(bytes, layout_, offset, kMaxPacket);
  size = static_cast<std::size_t>(frame.total);
  switch (frame.status) {
    case ParseStatus::Complete:
      break;
    case ParseStatus::NeedMore:
      return Step::Incomplete;
    case ParseStatus::NextTrace:
      return Step::Stop;
    case ParseStatus::Invalid:
      throw CorruptPacket{frame.problem.offset, describe(frame.problem)};
  }
  if (mode_ == Mode::LateMapsOnly && !wanted_for_late_maps(frame.type)) {
    return Step::Done;  // skipped by its size, the scan's usual case
  }
  PacketCursor packet(sprtrace::packet_data(bytes, frame), layout_, offset);
  dispatch(frame.type, packet);
  return Step::Done;
}

void BinaryReader::dispatch(std::uint32_t type, PacketCursor& packet) {
  if (mode_ == Mode::LateMapsOnly) {
    return collect_late_map(type, packet);
  }
  if (type == static_cast<std::uint32_t>(PacketType::FunctionArgs)) {
    return read_arguments(packet);
  }
  if (type == static_cast<std::uint32_t>(PacketType::Backtrace)) {
    return read_backtrace(packet);
  }
  if (type == static_cast<std::uint32_t>(PacketType::CallSize)) {
    return read_call_size(packet);
  }
  deliver_call();
  if (type != static_cast<std::uint32_t>(PacketType::CommandLine)) {
    deliver_process();
  }
  switch (static_cast<PacketType>(type)) {
    case PacketType::FunctionCall:
      return read_call(packet);
    case PacketType::ProcessInfo:
      return read_process_info(packet);
    case PacketType::ModuleInfo:
      return read_module(packet);
    case PacketType::MemoryMap:
      return read_mapping(packet);
    case PacketType::ContextRegistry:
      return read_context(packet);
    case PacketType::ResourceRegistry:
      return read_resource_type(packet);
    case PacketType::HeapInfo:
      return read_heap_info(packet);
    case PacketType::OutputSettings:
      return read_output_settings(packet);
    case PacketType::FileAttachment:
      return read_attachment(packet);
    case PacketType::CommandLine:
      return read_command_line(packet);
    case PacketType::TraceEnd:
      return read_trace_end(packet);
    case PacketType::NewLibrary:
      return;  // recorder-internal
    case PacketType::FunctionArgs:
    case PacketType::Backtrace:
    case PacketType::CallSize:
      break;
  }
  skip_unknown(type, packet.packet_offset());
}

void BinaryReader::read_call(PacketCursor& packet) {
  Call& call = call_.call;
  call = Call{};
  if (major_ >= 2) {
    // What the 2.0 tracer writes (NOTES.md).
    call.resource_type = packet.dword();
    call.context = packet.dword();
    call.timestamp_ns = std::uint64_t{packet.dword()} * kNanosecondsPerMillisecond;
    call.kind = call_kind(packet.dword());
    call_.function = packet.string();
    call.size = packet.dword();
    call.resource_id = packet.pointer();
  } else {
    // The protocol document's order, the ground truth for 1.x: NOTES.md names 2.0 as where the
    // real tool departs from it.
    call.timestamp_ns = std::uint64_t{packet.dword()} * kNanosecondsPerMillisecond;
    call.resource_type = packet.dword();
    call.context = packet.dword();
    call.kind = call_kind(packet.dword());
    call_.function = packet.string();
    call.resource_id = packet.pointer();
    call.size = packet.dword();
  }
  call.index = ++call_count_;
  call.pid = process_.pid;
  arguments_.clear();
  complete_arguments_ = 0;
  frame_count_ = 0;
  call_pending_ = true;
}

bool BinaryReader::accept_call_part(const char* what, std::uint64_t offset) {
  if (call_pending_) {
    return true;
  }
  if (!warned_orphan_) {
    warned_orphan_ = true;
    warn(offset, fmt::format("{} packet without a CALL packet before it; ignored", what));
  }
  return false;
}

void BinaryReader::read_arguments(PacketCursor& packet) {
  if (!accept_call_part("ARGS", packet.packet_offset())) {
    return;
  }
  const std::uint32_t count = packet.dword();
  // Each argument is two strings of at least 2 bytes each.
  if (std::uint64_t{count} * 4 > packet.remaining()) {
    packet.fail(fmt::format("argument count {} larger than the packet holds", count));
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string_view name = packet.string();
    const std::string_view value = packet.string();
    arguments_.push_back({name, value});
  }
  complete_arguments_ = arguments_.size();
}

// RSIZ: [size:8], the real size of the call whose CALL packet holds it capped to 4 bytes.
void BinaryReader::read_call_size(PacketCursor& packet) {
  if (!accept_call_part("RSIZ", packet.packet_offset())) {
    return;
  }
  const std::uint64_t size = packet.qword();
  if (call_.call.size != sprtrace::kCappedCallSize || !sprtrace::needs_call_size_packet(size)) {
    packet.fail(
        fmt::format("RSIZ packet's size {} for a CALL packet of size {}", size, call_.call.size));
  }
  call_.call.size = size;
}

void BinaryReader::read_backtrace(PacketCursor& packet) {
  if (!accept_call_part("BTRC", packet.packet_offset())) {
    return;
  }
  const std::uint32_t count = packet.dword();
  // A product, not a quotient: a division by the pointer size costs tens of cycles per call.
  if (std::uint64_t{count} * layout_.pointer_size > packet.remaining()) {
    packet.fail(fmt::format("frame count {} larger than the packet holds", count));
  }
  if (frames_.size() < count) {
    frames_.resize(count);
  }
  packet.frames(count, frames_.data());
  frame_count_ = count;
}

void BinaryReader::read_process_info(PacketCursor& packet) {
  process_.pid = packet.dword();
  process_.start.seconds = packet.dword();
  process_.start.microseconds = packet.dword();
  process_.backtrace_depth.reset();
  if (sprtrace::has_backtrace_depth(major_, minor_)) {
    process_.backtrace_depth = packet.dword();
  }
  process_.name.assign(packet.string());
  process_.command_line.reset();
  process_pending_ = mode_ == Mode::Everything;
}

void BinaryReader::deliver_process() {
  if (process_pending_) {
    process_pending_ = false;
    sink_.process(process_);
  }
}

// RCMD: [pid][flags][argc] then argc strings; completes the process of the PINF just before.
void BinaryReader::read_command_line(PacketCursor& packet) {
  const std::uint32_t pid = packet.dword();
  const std::uint32_t flags = packet.dword();
  const std::uint32_t count = packet.dword();
  // Each argument is a string of at least 2 bytes.
  if (count > packet.remaining() / 2) {
    packet.fail(fmt::format("argument count {} larger than the packet holds", count));
  }
  CommandLine command_line{.cut = (flags & sprtrace::kCommandLineCut) != 0};
  command_line.arguments.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    command_line.arguments.emplace_back(packet.string());
  }
  if (!process_pending_ || process_.pid != pid) {
    warn(packet.packet_offset(),
         fmt::format("RCMD packet of process {} not right after its PINF packet; ignored", pid));
    deliver_process();
    return;
  }
  process_.command_line = std::move(command_line);
  deliver_process();
}

// REND: [pid][reason][signal][seconds][microseconds][peak rss:8][rss:8].
void BinaryReader::read_trace_end(PacketCursor& packet) {
  TraceEnd end;
  end.pid = packet.dword();
  const std::uint32_t reason = packet.dword();
  end.signal = packet.dword();
  end.time.seconds = packet.dword();
  end.time.microseconds = packet.dword();
  end.peak_rss_bytes = packet.qword();
  end.rss_bytes = packet.qword();
  if (reason < static_cast<std::uint32_t>(EndReason::Exit) ||
      reason > static_cast<std::uint32_t>(EndReason::NoSpace)) {
    warn(packet.packet_offset(),
         fmt::format("REND packet with unknown reason {}; ignored", reason));
    return;
  }
  // Out of range for every other reader: left out, so that no writer passes it on (the end
  // itself stays, or the trace would look killed).
  if (end.time.microseconds >= 1'000'000) {
    warn(packet.packet_offset(),
         fmt::format("REND packet's wall-clock microseconds {} out of range; time left out",
                     end.time.microseconds));
    end.time = {};
  }
  end.reason = static_cast<EndReason>(reason);
  sink_.trace_end(end);
}

void BinaryReader::read_module(PacketCursor& packet) {
  module_.id = packet.dword();
  const std::uint32_t version = packet.dword();
  module_.version_major = static_cast<std::uint16_t>(version >> 16);
  module_.version_minor = static_cast<std::uint16_t>(version & 0xFFFF);
  module_.name.assign(packet.string());
  if (declared_.first(module_)) {
    sink_.module(module_);
  }
}

void BinaryReader::read_mapping(PacketCursor& packet) {
  mapping_.from = packet.pointer();
  mapping_.to = packet.pointer();
  mapping_.path.assign(packet.string());
  mapping_.pid = process_.pid;
  if (mode_ == Mode::Everything) {
    sink_.mapping(mapping_);
  }
}

void BinaryReader::read_context(PacketCursor& packet) {
  context_.id = packet.dword();
  context_.name.assign(packet.string());
  if (declared_.first(context_)) {
    sink_.context(context_);
  }
}

void BinaryReader::read_resource_type(PacketCursor& packet) {
  resource_.id = packet.dword();
  resource_.flags = 0;
  if (sprtrace::has_resource_flags(major_, minor_)) {
    resource_.flags = packet.dword();
  }
  resource_.type.assign(packet.string());
  resource_.description.assign(packet.string());
  if (!ResourceType::valid_id(resource_.id)) {
    warn(packet.packet_offset(),
         fmt::format("resource type id {} out of range (1 to {}); the type is left out",
                     resource_.id, ResourceType::kMaxId));
    return;
  }
  if (declared_.first(resource_)) {
    sink_.resource_type(resource_);
  }
}

void BinaryReader::read_heap_info(PacketCursor& packet) {
  const bool narrow_heap_bounds =
      layout_.pointer_size == 8 && packet.size() == (2 + kHeapInfoDwords) * 4;
  HeapInfo info;
  info.heap_bottom = narrow_heap_bounds ? packet.dword() : packet.pointer();
  info.heap_top = narrow_heap_bounds ? packet.dword() : packet.pointer();
  for (std::uint32_t* field :
       {&info.arena, &info.ordblks, &info.smblks, &info.hblks, &info.hblkhd, &info.usmblks,
        &info.fsmblks, &info.uordblks, &info.fordblks, &info.keepcost}) {
    *field = packet.dword();
  }
  sink_.heap_info(info);
}

void BinaryReader::read_output_settings(PacketCursor& packet) {
  settings_.path.assign(packet.string());
  settings_.options.assign(packet.string());
  sink_.output_settings(settings_);
}

void BinaryReader::read_attachment(PacketCursor& packet) {
  attachment_.name.assign(packet.string());
  attachment_.path.assign(packet.string());
  sink_.attachment(attachment_);
}

void BinaryReader::skip_unknown(std::uint32_t type, std::uint64_t offset) {
  if (std::find(unknown_types_.begin(), unknown_types_.end(), type) != unknown_types_.end()) {
    return;
  }
  unknown_types_.push_back(type);
  warn(offset, fmt::format("unknown packet type {} skipped", describe_type(type)));
}

void BinaryReader::deliver_call() {
  if (!call_pending_) {
    return;
  }
  call_pending_ = false;
  call_.arguments = arguments_;
  call_.frames = std::span<const Frame>(frames_.data(), frame_count_);
  sink_.call(call_);
}

// Copies the pending call's strings out of the input buffer, which the next peek may move. Some
// may already be copies from an earlier window, so they are gathered into a second vector first.
void BinaryReader::keep_call_text() {
  if (!call_pending_) {
    return;
  }
  std::size_t total = call_.function.size();
  for (const Argument& a : arguments_) {
    total += a.name.size() + a.value.size();
  }
  spare_text_.clear();
  spare_text_.reserve(total);  // no reallocation below, so the new views stay valid
  const auto keep = [this](std::string_view text) {
    const std::size_t at = spare_text_.size();
    spare_text_.insert(spare_text_.end(), text.begin(), text.end());
    return std::string_view(spare_text_.data() + at, text.size());
  };
  call_.function = keep(call_.function);
  for (Argument& a : arguments_) {
    a.name = keep(a.name);
    a.value = keep(a.value);
  }
  call_text_.swap(spare_text_);
}

}  // namespace

std::vector<Mapping> read_late_maps(InputStream& input) {
  // Nothing is delivered and nothing warned of: the pass that reads everything does that.
  DiscardingSink nowhere;
  CollectingDiagnostics quiet;
  BinaryReader scan(input, nowhere, quiet, BinaryReader::Mode::LateMapsOnly);
  try {
    if (scan.read_handshake()) {
      scan.read_packets();
    }
  } catch (const CorruptPacket&) {
    // The maps before the damage are kept; the other pass stops at the same place.
  }
  return std::move(scan.late_maps_);
}

void read_sprtrace_binary(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  BinaryReader(input, sink, diagnostics).run();
}

}  // namespace rtrace
