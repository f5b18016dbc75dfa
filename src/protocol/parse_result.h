// What the sp-rtrace parsers (sprtrace_handshake.h, sprtrace_framing.h) say about the bytes they
// were given: a whole handshake or packet header, not enough bytes yet, or bytes that cannot be
// one. A problem carries the byte offset it was found at and the values that make it one, so
// that each caller words it as it reports (the reader as an error of the trace, the recorder by
// passing the stream on untouched); nothing here allocates, so that the tracer may parse too.
#pragma once

#include <cstdint>

namespace rtrace::sprtrace {

enum class ParseStatus : std::uint8_t {
  Complete,   // parsed; the result's fields are valid
  NeedMore,   // the bytes end too early: the result says how many are needed from their start
  Invalid,    // the bytes are not what they should be: the result's problem says why
  NextTrace,  // a handshake where a packet header was expected: a second, concatenated trace
};

enum class Problem : std::uint8_t {
  None,
  NotAHandshake,           // the first byte is not kHandshakeId
  HandshakeTooShort,       // the handshake's size leaves no room for its fields
  UnsupportedVersion,      // first: the major version, second: the minor
  UnknownByteOrder,        // first: the byte order field
  UnsupportedPointerSize,  // first: the pointer size field
  ImpossiblePacketSize,    // first: the packet header's size field
};

struct ParseProblem {
  Problem what = Problem::None;
  std::uint64_t offset = 0;  // in the input: where the handshake or packet starts
  std::uint64_t first = 0;
  std::uint64_t second = 0;
};

}  // namespace rtrace::sprtrace
