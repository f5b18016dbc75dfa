// Decodes an apitrace call stream (trace versions 0 to 6) into calls, one at a time.
//
// Streaming: a call is yielded when its leave event has been read (so in completion order, as
// `apitrace dump` prints them), and calls whose enter had no leave come last, flagged incomplete.
// Memory holds the calls in flight and the signature tables the file defines, both bounded.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/apitrace/call.h"
#include "formats/apitrace/stream_window.h"
#include "io/diagnostics.h"

namespace rtrace::apitrace {

struct TraceHeader {
  std::uint64_t version = 0;
  std::uint64_t semantic_version = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // in stream order
};

// Bounds on what a (possibly hostile) file can make the decoder hold.
struct DecoderLimits {
  std::size_t max_event = std::size_t{64} << 20;             // bytes of one event
  std::size_t max_signature_bytes = std::size_t{256} << 20;  // all signatures and frames
};

// The API a trace records, told by its first recognisable function name (as apitrace does).
enum class Api : std::uint8_t { Unknown, Gl, Egl, Dx };

class Decoder {
 public:
  static constexpr std::uint64_t kMaxVersion = 6;
  static constexpr std::size_t kMaxCallsInFlight = 65536;
  static constexpr unsigned kMaxNesting = 64;

  // Reads the header. Throws InputError when the input is not a trace this decoder reads.
  // `at_end` runs when the stream ends and may throw the damage that ended it (check_end of
  // OpenedTrace).
  Decoder(StreamWindow& stream, Diagnostics& diagnostics, std::function<void()> at_end = {},
          DecoderLimits limits = {});
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  const TraceHeader& header() const { return header_; }
  Api api() const { return api_; }

  // The next call, valid until the following next(); nullptr at the end. Damage that ends the
  // stream early is a warning (what came before has been yielded); damage that makes the rest
  // unreadable throws InputError after everything before it has been yielded.
  const Call* next();

  // Bytes of the decompressed stream read so far (up to the end of the last complete event).
  std::uint64_t offset() const { return stream_.offset(); }

 private:
  struct Signatures;
  class EventParser;
  friend class EventParser;

  void read_header();
  Call* read_event();
  Call* next_incomplete();
  void adjust_flags(Call& call) const;
  Call* take_call();
  void recycle(Call* call);
  [[noreturn]] void fail(std::uint64_t offset, const std::string& message) const;

  void stream_ended();

  StreamWindow& stream_;
  Diagnostics& diagnostics_;
  std::function<void()> at_end_;
  DecoderLimits limits_;
  TraceHeader header_;
  Api api_ = Api::Unknown;
  std::unique_ptr<Signatures> signatures_;
  std::uint64_t next_call_number_ = 0;
  std::vector<Call*> in_flight_;              // entered, not yet left, in enter order
  std::vector<std::unique_ptr<Call>> calls_;  // every Call object we own
  std::vector<Call*> spare_;
  Call* yielded_ = nullptr;
  std::size_t window_ = std::size_t{64} << 10;
  bool ended_ = false;
};

const char* api_name(Api api);

}  // namespace rtrace::apitrace
