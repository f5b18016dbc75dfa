#include "formats/sprtrace_binary/handshake.h"

#include <fmt/format.h>

namespace rtrace::sprtrace {
namespace {

constexpr std::string_view kVersionKey = "sprtrace.protocol_version";
constexpr std::string_view kByteOrderKey = "sprtrace.byte_order";
constexpr std::string_view kPointerSizeKey = "sprtrace.pointer_size";

}  // namespace

TraceHeader header_from_handshake(const Handshake& handshake) {
  TraceHeader header;
  header.arch = handshake.arch;
  header.metadata.set(kVersionKey, fmt::format("{}.{}", handshake.major, handshake.minor));
  header.metadata.set(kByteOrderKey, handshake.big_endian ? "big" : "little");
  header.metadata.set(kPointerSizeKey, handshake.pointer_size == 4 ? "4" : "8");
  return header;
}

Handshake handshake_for(const TraceHeader& header) {
  Handshake handshake;
  handshake.arch = header.arch;
  handshake.big_endian = header.metadata.get_or(kByteOrderKey, "little") == "big";
  handshake.pointer_size = header.metadata.get_or(kPointerSizeKey, "8") == "4" ? 4 : 8;
  return handshake;
}

}  // namespace rtrace::sprtrace
