// What the tracer wrote, decoded through the real post-processing path (read_trace: the compact
// format of `rtrace record` or the binary protocol of `sp-rtrace`) into plain values the tests can
// check. A binary file is also re-encoded with BinaryWriter and must come out byte for byte the
// same: that proves the tracer writes the canonical protocol 2.0 layout the original tools
// expect, not merely something our lenient reader accepts. A compact file must read without a
// warning: complete, its end-of-trace record included.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/records.h"

namespace rtrace::test {

struct DecodedCall {
  std::uint32_t resource_type = 0;
  std::uint32_t context = 0;
  std::uint32_t timestamp = 0;
  std::uint32_t kind = 0;  // 1 free, 2 alloc
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t id = 0;
  std::uint64_t thread = 0;  // the compact format's (version 4); 0 in the sp-rtrace protocol
  std::vector<std::uint64_t> frames;
  std::vector<std::pair<std::string, std::string>> args;
};

struct DecodedMapping {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  std::string path;
};

// Replays allocations and releases: what is live at the end, and every release of an id that was
// not live (a "false free": ordering or loss went wrong).
class LeakChecker {
 public:
  void call(const DecodedCall& call);
  // Counts the allocations and releases of blocks whose size is in [lowest, highest].
  void count_sizes(std::uint64_t lowest, std::uint64_t highest) {
    lowest_ = lowest;
    highest_ = highest;
  }
  std::uint64_t counted_allocations() const { return counted_allocations_; }
  std::uint64_t counted_frees() const { return counted_frees_; }
  std::uint64_t false_frees() const { return false_frees_; }
  std::uint64_t double_allocations() const { return double_allocations_; }
  const std::map<std::uint64_t, std::uint64_t>& live() const { return live_; }

 private:
  std::map<std::uint64_t, std::uint64_t> live_;  // id -> size
  std::uint64_t false_frees_ = 0;
  std::uint64_t double_allocations_ = 0;
  std::uint64_t lowest_ = 1;
  std::uint64_t highest_ = 0;
  std::uint64_t counted_allocations_ = 0;
  std::uint64_t counted_frees_ = 0;
};

// A decoded trace: plain values, copyable, filled by decode_file() / decode_stream().
class TraceDecoder {
 public:
  // True when the stream was read to its end without damage.
  bool complete() const { return finished_ && error_.empty() && warnings_.empty(); }
  std::string error() const { return error_ + warnings_; }

  // Keep every call (small traces) or only count and check them (big ones).
  void set_keep_calls(bool keep) { keep_calls_ = keep; }
  void set_check_leaks(bool check) { check_leaks_ = check; }

  std::uint32_t pid = 0;
  std::string process;
  std::uint32_t depth = 0;
  std::vector<std::string> packet_order;  // packet type of every packet, until the first call
  std::vector<std::pair<std::uint32_t, std::string>> modules;
  std::vector<std::string> resources;  // "id flags type (description)"
  std::vector<std::pair<std::uint32_t, std::string>> contexts;
  std::vector<DecodedMapping> mappings;
  std::vector<DecodedCall> calls;
  std::uint64_t call_count = 0;
  std::uint64_t map_snapshots = 0;  // MMAP runs after the first call (dlopen/dlclose)
  std::uint64_t heap_infos = 0;
  std::optional<CommandLine> command_line;  // RCMD
  std::optional<TraceEnd> end;              // REND
  LeakChecker leaks;

 private:
  friend class DecodingSink;
  friend TraceDecoder decode_file(const std::string& path);
  friend void decode_stream(int fd, TraceDecoder& decoder);

  std::string error_;
  std::string warnings_;
  bool finished_ = false;
  bool keep_calls_ = true;
  bool check_leaks_ = true;
  bool last_was_map_ = false;
};

// Whether the first frame of `call` is in a mapping of the file `path` (the trace's MMAP records).
bool frame0_in(const TraceDecoder& trace, const DecodedCall& call, const std::string& path);

// Decodes a trace file, and checks that re-encoding it gives the same bytes.
TraceDecoder decode_file(const std::string& path);
// Decodes a stream as it arrives (the test acting as the recorder); does not close `fd`.
void decode_stream(int fd, TraceDecoder& decoder);

}  // namespace rtrace::test
