// Helpers for the compact format tests: converting between formats in memory, reading bytes
// into a RecordingSink, and building compact records by hand.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "formats/format_registry.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/memory_source.h"
#include "io/output_stream.h"
#include "protocol/compact_protocol.h"
#include "support/recording_sink.h"
#include "support/test_paths.h"

namespace rtrace::test {

struct CompactRead {
  RecordingSink sink;
  std::string warnings;
  std::string error;  // InputError's text, empty when none
};

// Reads `bytes` (format detected by content) the way every command does; `compressed`: opened
// as a file is, so that gzip or zstd data is decompressed first.
inline std::unique_ptr<CompactRead> read_any(std::string bytes, std::size_t piece = 1 << 20,
                                             bool compressed = false) {
  auto result = std::make_unique<CompactRead>();
  auto source = std::make_unique<MemorySource>(std::move(bytes), piece);
  const std::unique_ptr<InputStream> opened =
      compressed ? open_input(std::move(source), "trace")
                 : std::make_unique<InputStream>(std::move(source), "trace");
  InputStream& input = *opened;
  CollectingDiagnostics diagnostics;
  try {
    read_trace(input, result->sink, diagnostics);
  } catch (const InputError& e) {
    result->error = e.what();
  }
  result->warnings = diagnostics.text();
  return result;
}

// `bytes` (any format) written by the writer of format `name`.
inline std::string convert_to(const std::string& bytes, std::string_view name) {
  const TraceFormatInfo* format = find_format(name);
  EXPECT_NE(format, nullptr) << name;
  const ScratchDir scratch;
  const auto path = scratch / "out";
  {
    OutputStream out(path.string(), {});
    const std::unique_ptr<TraceSink> writer = format->open_writer(out, ExportOptions{});
    InputStream input(std::make_unique<MemorySource>(bytes), "trace");
    CollectingDiagnostics diagnostics;
    read_trace(input, *writer, diagnostics);
    EXPECT_EQ(diagnostics.text(), "");
    out.commit();
  }
  return read_file(path);
}

// Compact records by hand: the file header (of version `major`.0: 1 unless said), then
// record(tag, payload) with payloads made of varint() and str().
class CompactBuilder {
 public:
  explicit CompactBuilder(std::uint8_t major = 1) {
    bytes_.assign(compact::kMagic, compact::kMagicSize);
    bytes_ += static_cast<char>(major);
    bytes_ += static_cast<char>(0);
  }

  static std::string varint(std::uint64_t v) {
    std::string out;
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
    return out;
  }
  static std::string str(std::string_view text) { return varint(text.size()) + std::string(text); }

  CompactBuilder& record(compact::Tag tag, const std::string& payload) {
    return raw_record(static_cast<std::uint8_t>(tag), payload);
  }
  CompactBuilder& raw_record(std::uint8_t tag, const std::string& payload) {
    bytes_ += static_cast<char>(tag);
    bytes_ += varint(payload.size());
    bytes_ += payload;
    return *this;
  }
  // Version 3's CALL: the flags with kBareCall, then the fields; no tag, no length.
  CompactBuilder& bare_call(std::uint8_t flags, const std::string& fields) {
    bytes_ += static_cast<char>(compact::kBareCall | flags);
    bytes_ += fields;
    return *this;
  }
  // TRACE: x86_64, 8-byte pointers, little endian, milliseconds, no origin.
  CompactBuilder& trace() {
    return record(compact::Tag::Trace,
                  str("x86_64") + varint(8) + varint(0) + varint(1'000'000) + str("") + varint(0));
  }
  CompactBuilder& end() {
    return record(compact::Tag::End,
                  varint(1) + varint(0) + varint(4096) + varint(4096) + varint(10));
  }

  std::size_t size() const { return bytes_.size(); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

}  // namespace rtrace::test
