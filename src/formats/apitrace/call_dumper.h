// Prints calls the way `apitrace dump` does, byte for byte (including its quirks, which
// rtrace-apitrace(1) lists): one call per line, values in C-like notation, optional ANSI colours.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "formats/apitrace/call.h"
#include "formats/apitrace/decoder.h"

namespace rtrace::apitrace {

struct DumpOptions {
  bool color = false;
  bool thread_ids = false;
  bool call_numbers = true;
  bool arg_names = true;
  bool multiline = true;  // backtraces, raw newlines in strings, a blank line after each frame
  // Blobs go to files (through `save_blob`) and are printed by file name; a repr then shows its
  // machine value (as `apitrace dump --blobs` does).
  bool blobs = false;
};

// Stores a blob under `file_name` (blob_call<N>[_<k>].bin).
using BlobSaver = std::function<void(const std::string& file_name, std::string_view bytes)>;

class CallDumper {
 public:
  explicit CallDumper(const DumpOptions& options, BlobSaver save_blob = {});

  // `// name = "value"` for each trace property.
  void properties(const TraceHeader& header, std::string& out) const;
  // The call, ending with its newline (and backtrace and frame break when multiline).
  void call(const Call& call, std::string& out);
  // One value of `call` (an argument or the return value), as call() prints it.
  void value_of(const Call& call, const Value& v, std::string& out) {
    call_number_ = call.number;
    value(call, v, out);
  }

 private:
  void value(const Call& call, const Value& v, std::string& out);
  void string(std::string_view text, std::string& out) const;
  void wide_string(std::span<const std::uint32_t> units, std::string& out) const;
  void escaped(std::uint32_t c, std::string& out) const;
  void enumeration(const Value& v, std::string& out) const;
  void bitmask(const Value& v, std::string& out) const;
  const char* members(const Call& call, const Value& s, const char* separator, std::string& out);
  void blob(const Call& call, const Value& v, std::string& out);
  static void frame(const StackFrame& frame, std::string& out);

  DumpOptions options_;
  BlobSaver save_blob_;
  // ANSI attributes; empty strings without colour.
  std::string_view normal_, bold_, italic_, red_, pointer_, literal_;
  std::uint64_t call_number_ = 0;
  unsigned blob_number_ = 0;
};

}  // namespace rtrace::apitrace
