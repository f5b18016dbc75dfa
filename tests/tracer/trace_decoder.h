// A small, independent decoder of what the tracer writes (protocol 2.0, little endian, 8-byte
// pointers), so the tracer tests check the bytes themselves rather than trusting the
// post-processor. It decodes incrementally: a test acting as the recorder can feed it a socket
// stream of hundreds of megabytes and keep only what it checks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rtrace::test {

struct DecodedCall {
  std::uint32_t resource_type = 0;
  std::uint32_t context = 0;
  std::uint32_t timestamp = 0;
  std::uint32_t kind = 0;  // 1 free, 2 alloc
  std::string name;
  std::uint32_t size = 0;
  std::uint64_t id = 0;
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
  void count_sizes(std::uint32_t lowest, std::uint32_t highest) {
    lowest_ = lowest;
    highest_ = highest;
  }
  std::uint64_t counted_allocations() const { return counted_allocations_; }
  std::uint64_t counted_frees() const { return counted_frees_; }
  std::uint64_t false_frees() const { return false_frees_; }
  std::uint64_t double_allocations() const { return double_allocations_; }
  const std::map<std::uint64_t, std::uint32_t>& live() const { return live_; }

 private:
  std::map<std::uint64_t, std::uint32_t> live_;  // id -> size
  std::uint64_t false_frees_ = 0;
  std::uint64_t double_allocations_ = 0;
  std::uint32_t lowest_ = 1;
  std::uint32_t highest_ = 0;
  std::uint64_t counted_allocations_ = 0;
  std::uint64_t counted_frees_ = 0;
};

class TraceDecoder {
 public:
  // Decodes what it can; keeps an incomplete packet for the next feed.
  void feed(const char* data, std::size_t size);
  // Ends the stream: the last call is complete.
  void finish() { finish_call(); }
  // True when everything fed was decoded into whole packets without error.
  bool complete() const { return error_.empty() && pending_.empty() && handshake_seen_; }
  const std::string& error() const { return error_; }

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
  std::uint64_t map_snapshots = 0;  // MMAP runs after the header (dlopen/dlclose)
  std::uint64_t heap_infos = 0;
  LeakChecker leaks;

 private:
  bool decode_packet(std::uint32_t type, const char* data, std::size_t size);
  void finish_call();

  std::string pending_;
  std::string error_;
  bool handshake_seen_ = false;
  bool keep_calls_ = true;
  bool check_leaks_ = true;
  bool have_call_ = false;
  bool last_was_map_ = false;
  DecodedCall current_;
};

TraceDecoder decode_file(const std::string& path);

}  // namespace rtrace::test
