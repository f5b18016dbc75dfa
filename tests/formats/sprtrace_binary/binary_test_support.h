// Helpers for the binary protocol tests: reading bytes held in memory, writing a trace to bytes,
// and a tiny encoder for hand-built traces of any protocol version, byte order and pointer size.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/binary_writer.h"
#include "io/byte_source.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "io/output_stream.h"
#include "protocol/sprtrace_packets.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {

// What reading some bytes gave: the records, the warnings, and the error if one was thrown.
struct ReadResult {
  RecordingSink sink;
  std::string warnings;
  bool failed = false;
  std::uint64_t error_position = 0;
  std::string error;
};

inline std::unique_ptr<ReadResult> read_bytes(std::string bytes, std::size_t piece = 1 << 20) {
  auto result = std::make_unique<ReadResult>();
  InputStream input(std::make_unique<MemorySource>(std::move(bytes), piece), "trace");
  CollectingDiagnostics diagnostics;
  try {
    read_sprtrace_binary(input, result->sink, diagnostics);
  } catch (const InputError& e) {
    result->failed = true;
    result->error_position = e.position();
    result->error = e.what();
  }
  result->warnings = diagnostics.text();
  return result;
}

// Runs `feed` against a BinaryWriter and returns the bytes it wrote.
template <typename Feed>
std::string write_bytes(Feed feed) {
  const ScratchDir dir;
  const auto path = dir / "out.rtrace";
  {
    OutputStream out(path.string(), {});
    BinaryWriter writer(out);
    feed(writer);
    out.commit();
  }
  return read_file(path);
}

// A call of `kind` on the resource `id` of `type` (its size the id's low byte), named malloc,
// free or other after its kind; without arguments and backtrace.
inline CallRecord resource_call(std::uint64_t index, CallKind kind, std::uint32_t type,
                                Address id) {
  CallRecord r;
  r.call.index = index;
  r.call.kind = kind;
  r.call.resource_type = type;
  r.call.resource_id = id;
  r.call.size = id & 0xFF;
  r.function = kind == CallKind::Alloc ? "malloc" : kind == CallKind::Free ? "free" : "other";
  return r;
}

inline std::string read_fixture(const std::string& name) {
  return read_file(fixture("sp-rtrace/" + name));
}

// Builds binary traces by hand, for versions and layouts the fixtures do not cover.
class TraceBuilder {
 public:
  TraceBuilder(std::uint8_t major, std::uint8_t minor, bool big_endian = false,
               std::uint8_t pointer_size = 8)
      : major_(major), big_(big_endian), pointer_size_(pointer_size) {
    const std::string arch = "x86_64";
    bytes_ += '\xF0';
    bytes_ += static_cast<char>(sprtrace::handshake_size(arch.size()) - 2);
    bytes_ += static_cast<char>(major);
    bytes_ += static_cast<char>(minor);
    bytes_ += static_cast<char>(arch.size());
    bytes_ += arch;
    bytes_ += static_cast<char>(big_endian ? 1 : 0);
    bytes_ += static_cast<char>(pointer_size);
    bytes_.resize(sprtrace::handshake_size(arch.size()), '\0');
  }

  // Starts a packet of type `name`; its fields follow; end() closes it.
  TraceBuilder& begin(const char (&name)[5]) {
    packet_.clear();
    type_ = sprtrace::packet_type(name);
    return *this;
  }
  TraceBuilder& dword(std::uint32_t v) { return number(v, 4, packet_); }
  TraceBuilder& qword(std::uint64_t v) { return number(v, 8, packet_); }
  TraceBuilder& pointer(std::uint64_t v) { return number(v, pointer_size_, packet_); }
  TraceBuilder& string(std::string_view text) {
    const std::size_t length = sprtrace::padded_string_length(text.size());
    number(length, 2, packet_);
    packet_ += text;
    packet_.append(length - text.size(), '\0');
    return *this;
  }
  TraceBuilder& raw(std::string_view bytes) {
    packet_ += bytes;
    return *this;
  }
  TraceBuilder& end() {
    std::string type;
    number(type_, 4, type);
    if (spell_forward_ && big_) {
      type = {type.rbegin(), type.rend()};
    }
    if (major_ >= 2) {
      bytes_ += type;
      number(packet_.size(), 4, bytes_);
    } else {
      number(packet_.size() + 4, 4, bytes_);
      bytes_ += type;
    }
    bytes_ += packet_;
    return *this;
  }

  // Packet types as bytes that spell the name whatever the byte order (not what the tracer
  // does in a big-endian trace, but what a writer might).
  TraceBuilder& spell_types_forward() {
    spell_forward_ = true;
    return *this;
  }

  const std::string& bytes() const { return bytes_; }

 private:
  TraceBuilder& number(std::uint64_t v, std::size_t width, std::string& out) {
    for (std::size_t i = 0; i < width; ++i) {
      const std::size_t shift = big_ ? (width - 1 - i) * 8 : i * 8;
      out += static_cast<char>((v >> shift) & 0xFF);
    }
    return *this;
  }

  std::uint8_t major_;
  bool big_;
  std::uint8_t pointer_size_;
  std::uint32_t type_ = 0;
  bool spell_forward_ = false;
  std::string packet_;
  std::string bytes_;
};

}  // namespace rtrace::test
