// The sp-rtrace binary protocol: packet types, field constants and layout rules shared by
// everything that reads or writes it (the post-processor's reader and writer, the recorder, and
// the tracer running inside a process). The handshake is parsed by sprtrace_handshake.h, packet
// headers by sprtrace_framing.h, packet fields by sprtrace_packet_cursor.h.
//
// See the sp-rtrace BINARY_PROTOCOL document and docs/protocol-extensions.md. Summary of what the
// real tool writes (protocol 2.0):
//   handshake  [0xF0][size:1][major:1][minor:1][len:1][arch:len][endian:1][pointer size:1] padded
//              to 4 bytes; size counts everything after itself, padding included.
//   packet     [type:4][size:4][data:size] from 2.0; [size:4][type:4][data] before 2.0. Types are
//              four ASCII letters stored as a 32-bit value in the writer's byte order.
//   string     [length:2][bytes] where the length already counts the NUL padding that makes
//              2 + length a multiple of 4; the text ends at the first NUL.
// Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::sprtrace {

inline constexpr std::uint8_t kHandshakeId = 0xF0;
inline constexpr std::uint8_t kWrittenMajor = 2;
inline constexpr std::uint8_t kWrittenMinor = 0;

// A packet type as a 32-bit value. The tracer stores the little-endian spelling
// ('C' | 'A' << 8 | ...) as a dword in its own byte order, so a little-endian file holds the bytes
// "CALL" and a big-endian one "LLAC"; decoded in the file's byte order the value is always the
// little-endian one. (big_endian = true gives the value whose big-endian bytes spell the name.)
constexpr std::uint32_t packet_type(const char (&name)[5], bool big_endian = false) {
  const auto b = [&](int i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(name[i]));
  };
  return big_endian ? (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3)
                    : b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

enum class PacketType : std::uint32_t {
  ProcessInfo = packet_type("PINF"),
  ModuleInfo = packet_type("MINF"),
  MemoryMap = packet_type("MMAP"),
  ContextRegistry = packet_type("CTXR"),
  FunctionCall = packet_type("CALL"),
  Backtrace = packet_type("BTRC"),
  FunctionArgs = packet_type("ARGS"),
  NewLibrary = packet_type("NLIB"),
  HeapInfo = packet_type("HINF"),
  OutputSettings = packet_type("OCFG"),
  ResourceRegistry = packet_type("RESR"),
  FileAttachment = packet_type("FILE"),
  // rtrace's extensions (docs/protocol-extensions.md): written only by rtrace's own tracer (and
  // kept by rtrace's writer); the original post-processor skips packets of unknown types.
  CommandLine = packet_type("RCMD"),
  TraceEnd = packet_type("REND"),
  CallSize = packet_type("RSIZ"),
};

// Whether `type` is one of the packet types above.
constexpr bool is_known_packet_type(std::uint32_t type) {
  switch (static_cast<PacketType>(type)) {
    case PacketType::ProcessInfo:
    case PacketType::ModuleInfo:
    case PacketType::MemoryMap:
    case PacketType::ContextRegistry:
    case PacketType::FunctionCall:
    case PacketType::Backtrace:
    case PacketType::FunctionArgs:
    case PacketType::NewLibrary:
    case PacketType::HeapInfo:
    case PacketType::OutputSettings:
    case PacketType::ResourceRegistry:
    case PacketType::FileAttachment:
    case PacketType::CommandLine:
    case PacketType::TraceEnd:
    case PacketType::CallSize:
      return true;
  }
  return false;
}

// RCMD, right after PINF: [pid:4][flags:4][argc:4] then argc strings, the process's argv.
inline constexpr std::uint32_t kCommandLineCut = 0x1;  // flags: later arguments left out
// REND, the last packet: [pid:4][reason:4][signal:4][seconds:4][microseconds:4]
// [peak rss bytes:8][rss bytes:8]. Reasons as EndReason (records.h):
inline constexpr std::uint32_t kEndExit = 1;
inline constexpr std::uint32_t kEndToggleOff = 2;
inline constexpr std::uint32_t kEndFastExit = 3;  // _exit, quick_exit
inline constexpr std::uint32_t kEndSignal = 4;    // a fatal signal; `signal` says which
inline constexpr std::uint32_t kEndExec = 5;
inline constexpr std::uint32_t kEndNoSpace = 6;  // the trace's file system filled up
inline constexpr std::size_t kTraceEndSize = 5 * 4 + 2 * 8;
// RSIZ, right after a CALL whose size does not fit its 4-byte field (which then holds
// kCappedCallSize): [size:8], the call's real size.
inline constexpr std::uint32_t kCappedCallSize = 0xffffffff;
inline constexpr std::size_t kCallSizeSize = 8;
constexpr bool needs_call_size_packet(std::uint64_t size) {
  return size > kCappedCallSize;
}

constexpr bool is_extension(std::uint32_t type) {
  return type == static_cast<std::uint32_t>(PacketType::CommandLine) ||
         type == static_cast<std::uint32_t>(PacketType::TraceEnd) ||
         type == static_cast<std::uint32_t>(PacketType::CallSize);
}

// Packet headers: [type][size] from 2.0, where size counts the data only; [size][type] before
// 2.0, where size also counts the type field (the 1.x tracer wrote "bytes after the size field").
inline constexpr std::size_t kPacketHeaderSize = 8;

// Protocol features by version.
inline constexpr std::uint8_t kTypeFirstMajor = 2;  // [type][size] headers
constexpr bool has_backtrace_depth(std::uint8_t major, std::uint8_t minor) {
  return major > 1 || minor >= 2;
}
constexpr bool has_resource_flags(std::uint8_t major, std::uint8_t minor) {
  return major > 1 || minor >= 3;
}

// Call kinds in CALL packets.
inline constexpr std::uint32_t kCallFree = 1;
inline constexpr std::uint32_t kCallAlloc = 2;

// Module versions in MINF packets: major in the high 16 bits, minor in the low.
constexpr std::uint32_t module_version(std::uint16_t major, std::uint16_t minor) {
  return (std::uint32_t{major} << 16) | minor;
}

// The length field the real tracer writes for a string of `text_length` bytes: padded so that
// the 2-byte length plus the text end on a 4-byte boundary, with at least one NUL unless the
// text alone already reaches the boundary (as the tracer does: "malloc" is stored as 6, "main"
// as 6, "" as 2).
constexpr std::size_t padded_string_length(std::size_t text_length) {
  return ((2 + text_length + 3) & ~std::size_t{3}) - 2;
}

// Bytes a string occupies in a packet, length field included.
constexpr std::size_t string_field_size(std::size_t text_length) {
  return 2 + padded_string_length(text_length);
}

// Bytes the handshake occupies for an architecture name of `arch_length` bytes.
constexpr std::size_t handshake_size(std::size_t arch_length) {
  return (2 + 2 + 1 + arch_length + 2 + 3) & ~std::size_t{3};
}

}  // namespace rtrace::sprtrace
