#include "tracer/output/compact_transcoder.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "protocol/compact_encoder.h"
#include "protocol/sprtrace_framing.h"
#include "protocol/sprtrace_handshake.h"
#include "protocol/sprtrace_packets.h"
#include "tracer/core/clock.h"
#include "tracer/output/compact_tables.h"
#include "tracer/output/live_blocks.h"

namespace rtrace::tracer {
namespace {

using compact::Text;
using sprtrace::PacketType;

constexpr std::uint64_t kNanosecondsPerMillisecond = 1'000'000;
constexpr std::uint32_t kMaxFrames = 1024;
constexpr std::uint32_t kMaxArguments = 64;

struct BufferOut {
  static char* reserve(std::size_t bytes) { return output_reserve(bytes); }
  static void commit(std::size_t bytes) { output_commit(bytes); }
};

BufferOut g_out;
CompactTables g_tables;
constinit compact::CompactEncoder<BufferOut, CompactTables> g_encoder{g_out, g_tables};

// The call being assembled from CALL, ARGS and BTRC (all in the same piece of ring memory).
bool g_pending = false;
compact::CallFields g_call;
std::uint64_t g_frames[kMaxFrames];
Text g_arguments[2 * kMaxArguments];

// Reads the fields of one packet in host byte order (the tracer's own packets: never hostile,
// but a short packet still stops the reading instead of overrunning it).
class Fields {
 public:
  Fields(const char* data, std::size_t size) : pos_(data), end_(data + size) {}

  std::uint32_t u32() { return take<std::uint32_t>(); }
  std::uint64_t u64() { return take<std::uint64_t>(); }
  // `count` u64 fields into `out` with one copy (a backtrace: field by field, with a check each,
  // cost the writer 80 more instructions per 10-frame call); those past the packet's end read 0.
  void u64s(std::uint64_t* out, std::uint32_t count) {
    const std::size_t whole = static_cast<std::size_t>(end_ - pos_) / sizeof *out;
    const std::size_t taken = count < whole ? count : whole;
    if (taken > 0) {
      std::memcpy(out, pos_, taken * sizeof *out);
    }
    for (std::size_t i = taken; i < count; ++i) {
      out[i] = 0;
    }
    pos_ = taken < count ? end_ : pos_ + taken * sizeof *out;
  }
  Text string() {
    const auto stored = take<std::uint16_t>();
    if (static_cast<std::size_t>(end_ - pos_) < stored) {
      pos_ = end_;
      return {};
    }
    const char* text = pos_;
    const void* nul = std::memchr(text, 0, stored);
    pos_ += stored;
    return {text, nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - text)
                                 : std::size_t{stored}};
  }

 private:
  template <class T>
  T take() {
    T value{};
    if (static_cast<std::size_t>(end_ - pos_) >= sizeof value) {
      std::memcpy(&value, pos_, sizeof value);
      pos_ += sizeof value;
    } else {
      pos_ = end_;
    }
    return value;
  }

  const char* pos_;
  const char* end_;
};

void emit_pending() {
  if (g_pending) {
    g_pending = false;
    live_blocks_apply(g_call);
    g_encoder.call(g_call);
  }
}

void start_call(Fields& f) {
  emit_pending();
  g_call.resource_type = f.u32();
  g_call.context = f.u32();
  g_call.timestamp = f.u32();
  const std::uint32_t kind = f.u32();
  g_call.kind = kind == sprtrace::kCallFree || kind == sprtrace::kCallAlloc
                    ? static_cast<std::uint8_t>(kind)
                    : 0;
  g_call.function = f.string();
  g_call.size = f.u32();
  g_call.resource_id = f.u64();
  g_call.frames = g_frames;
  g_call.frame_count = 0;
  g_call.arguments = g_arguments;
  g_call.argument_count = 0;
  g_pending = true;
}

void add_arguments(Fields& f) {
  const std::uint32_t count = f.u32();
  g_call.argument_count = count < kMaxArguments ? count : kMaxArguments;
  for (std::uint32_t i = 0; i < 2 * g_call.argument_count; ++i) {
    g_arguments[i] = f.string();
  }
}

// RSIZ: the real size of the call whose CALL packet holds it capped.
void set_call_size(Fields& f) {
  g_call.size = f.u64();
}

void add_backtrace(Fields& f) {
  const std::uint32_t count = f.u32();
  g_call.frame_count = count < kMaxFrames ? count : kMaxFrames;
  f.u64s(g_frames, g_call.frame_count);
  emit_pending();
}

// The handshake at the front of the tracer's own stream starts the compact trace; the bytes it
// occupies, or all of `size` when it is not one (nothing after it could be read).
std::size_t handshake(const char* data, std::size_t size) {
  const sprtrace::HandshakeParse parse =
      sprtrace::parse_handshake({reinterpret_cast<const std::uint8_t*>(data), size});
  if (parse.status != sprtrace::ParseStatus::Complete) {
    return size;
  }
  g_encoder.file_header();
  g_encoder.trace({
      .arch = {parse.handshake.arch.data(), parse.handshake.arch.size()},
      .pointer_size = parse.handshake.pointer_size,
      .big_endian = parse.handshake.big_endian,
      .time_unit_ns = kNanosecondsPerMillisecond,
      .origin = {},
      .applied = 0,
  });
  return parse.size;
}

// PINF waits for the packet after it: RCMD (rtrace's extension) completes its PROCESS record with
// the command line. Its name is copied: the packet's bytes may be gone by then.
struct HeldProcess {
  bool held = false;
  std::uint32_t pid = 0;
  std::uint32_t seconds = 0;
  std::uint32_t microseconds = 0;
  std::uint32_t depth = 0;
  char name[4096] = {};
  std::size_t name_size = 0;
};
HeldProcess g_process;

// At most this many arguments go into the record; more are cut (RCMD holds 32 KiB at most).
constexpr std::uint32_t kMaxCommandArguments = 4096;
Text g_command_arguments[kMaxCommandArguments];

void hold_process(Fields f) {
  g_process.pid = f.u32();
  g_process.seconds = f.u32();
  g_process.microseconds = f.u32();
  g_process.depth = f.u32();
  const Text name = f.string();
  g_process.name_size = name.size < sizeof g_process.name ? name.size : sizeof g_process.name;
  if (g_process.name_size > 0) {  // an empty name's data may be null
    std::memcpy(g_process.name, name.data, g_process.name_size);
  }
  g_process.held = true;
}

void emit_held_process(const compact::CommandLineFields* command_line) {
  if (!g_process.held) {
    return;
  }
  g_process.held = false;
  g_encoder.process(g_process.pid, g_process.seconds, g_process.microseconds,
                    std::uint64_t{g_process.depth} + 1, {g_process.name, g_process.name_size},
                    command_line);
}

// RCMD: [pid][flags][argc] then argc strings.
void process_with_command_line(Fields f) {
  f.u32();  // the pid: the held process's
  const std::uint32_t flags = f.u32();
  const std::uint32_t count = f.u32();
  compact::CommandLineFields command_line{
      .arguments = g_command_arguments,
      .count = count < kMaxCommandArguments ? count : kMaxCommandArguments,
      .cut = (flags & sprtrace::kCommandLineCut) != 0 || count > kMaxCommandArguments};
  for (std::uint32_t i = 0; i < command_line.count; ++i) {
    g_command_arguments[i] = f.string();
  }
  emit_held_process(&command_line);
}

// REND ([pid][reason][signal][seconds][microseconds][peak rss:8][rss:8]) as the END record; the
// two formats number the reasons alike. Its timestamp: the trace's own clock, now; its wall
// clock: REND's.
void end_of_trace(Fields f) {
  f.u32();  // the pid: the trace's own
  const auto reason = static_cast<compact::EndReason>(f.u32());
  const std::uint32_t signal = f.u32();
  const std::uint32_t seconds = f.u32();
  const std::uint32_t microseconds = f.u32();
  const std::uint64_t peak_rss = f.u64();
  const std::uint64_t rss = f.u64();
  g_encoder.end({.reason = reason,
                 .signal = signal,
                 .peak_rss = peak_rss,
                 .end_rss = rss,
                 .timestamp = monotonic_milliseconds(),
                 .wall_seconds = seconds,
                 .wall_microseconds = microseconds});
}

void packet(std::uint32_t type, Fields f) {
  if (type == static_cast<std::uint32_t>(PacketType::FunctionArgs)) {
    return g_pending ? add_arguments(f) : void();
  }
  if (type == static_cast<std::uint32_t>(PacketType::Backtrace)) {
    return g_pending ? add_backtrace(f) : void();
  }
  if (type == static_cast<std::uint32_t>(PacketType::FunctionCall)) {
    return start_call(f);
  }
  if (type == static_cast<std::uint32_t>(PacketType::CallSize)) {
    return g_pending ? set_call_size(f) : void();
  }
  emit_pending();
  if (type != static_cast<std::uint32_t>(PacketType::CommandLine)) {
    emit_held_process(nullptr);
  }
  switch (static_cast<PacketType>(type)) {
    case PacketType::ProcessInfo:
      return hold_process(f);
    case PacketType::CommandLine:
      return process_with_command_line(f);
    case PacketType::ModuleInfo: {
      const std::uint32_t id = f.u32();
      const std::uint32_t version = f.u32();
      return g_encoder.module(id, version >> 16, version & 0xFFFF, f.string());
    }
    case PacketType::MemoryMap: {
      const std::uint64_t from = f.u64();
      const std::uint64_t to = f.u64();
      return g_encoder.mapping(from, to, f.string());
    }
    case PacketType::ContextRegistry: {
      const std::uint32_t id = f.u32();
      return g_encoder.context(id, f.string());
    }
    case PacketType::ResourceRegistry: {
      const std::uint32_t id = f.u32();
      const std::uint32_t flags = f.u32();
      const Text type_name = f.string();
      live_blocks_resource(id, type_name);
      return g_encoder.resource(id, flags, type_name, f.string());
    }
    case PacketType::HeapInfo: {
      std::uint64_t fields[14] = {};
      fields[0] = f.u64();
      fields[1] = f.u64();
      for (std::size_t i = 4; i < 14; ++i) {
        fields[i] = f.u32();
      }
      return g_encoder.heap_info(fields);
    }
    case PacketType::OutputSettings: {
      const Text path = f.string();
      return g_encoder.output_settings(path, f.string());
    }
    case PacketType::FileAttachment: {
      const Text name = f.string();
      return g_encoder.attachment(name, f.string());
    }
    case PacketType::TraceEnd:
      return end_of_trace(f);
    case PacketType::FunctionCall:
    case PacketType::Backtrace:
    case PacketType::FunctionArgs:
    case PacketType::CallSize:
    case PacketType::NewLibrary:
      return;
  }
}

}  // namespace

void compact_restart() {
  g_pending = false;
  g_process.held = false;
  g_tables.clear_all();
  g_encoder.restart();
  live_blocks_clear();
}

void compact_note(const char* text) {
  emit_pending();
  g_encoder.note({text, std::strlen(text)});
}

void compact_thread(std::uint32_t slot, std::uint64_t tid) {
  emit_pending();
  g_encoder.thread(slot, tid);
}

namespace {

// `encode` given `call` with at most kMaxFrames frames, as the packets would have carried it.
template <typename Encode>
void with_frames_capped(const compact::CallFields& call, Encode encode) {
  emit_pending();
  if (call.frame_count <= kMaxFrames) {  // every ring record's (at most the options' depth)
    encode(call);
    return;
  }
  compact::CallFields fields = call;
  fields.frame_count = kMaxFrames;
  encode(fields);
}

}  // namespace

void compact_call(const compact::CallFields& call) {
  live_blocks_apply(call);
  with_frames_capped(call, [](const compact::CallFields& fields) { g_encoder.call(fields); });
}

void compact_leak_kinds(std::uint32_t pid, const compact::LeakKindEntry* entries,
                        std::uint32_t count) {
  emit_pending();
  g_encoder.leak_kinds(pid, entries, count);
}

void compact_transient(const compact::CallFields& allocation, bool release_has_stack) {
  with_frames_capped(allocation, [release_has_stack](const compact::CallFields& fields) {
    g_encoder.transient(fields, release_has_stack);
  });
}

// The tracer's own stream: handshakes and packets in this machine's layout, read with the one
// framing parser; a packet cut short ends the buffer (the writer never sends one).
void compact_transcode(const char* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(data), size);
  std::size_t pos = 0;
  while (pos < size) {
    const sprtrace::PacketFrame frame = sprtrace::parse_packet(
        bytes.subspan(pos), sprtrace::kNativeLayout, pos, sprtrace::kMaxPacketSize);
    if (frame.status == sprtrace::ParseStatus::NextTrace ||
        (frame.status == sprtrace::ParseStatus::NeedMore && bytes[pos] == sprtrace::kHandshakeId)) {
      pos += handshake(data + pos, size - pos);
      continue;
    }
    if (frame.status != sprtrace::ParseStatus::Complete) {
      break;
    }
    const std::span<const std::uint8_t> packet_bytes =
        sprtrace::packet_data(bytes.subspan(pos), frame);
    packet(frame.type,
           Fields(reinterpret_cast<const char*>(packet_bytes.data()), packet_bytes.size()));
    pos += frame.total;
  }
  emit_pending();
}

}  // namespace rtrace::tracer
