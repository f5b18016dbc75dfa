// Which format an input is in, told by its first bytes (never by its file name).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rtrace {

enum class TraceFormat : std::uint8_t {
  Unknown,
  SpRtraceBinary,  // starts with the handshake byte 0xF0
  SpRtraceText,    // starts with "version="
  Mpatrol,         // starts with "MTRC"
  Apitrace,        // snappy container: 'a' 't'
  StackTrack,      // raw event buffers
};

TraceFormat detect_format(std::span<const std::uint8_t> head);
std::string_view format_name(TraceFormat format);

}  // namespace rtrace
