// --call-address TARGET:START+SIZE: keeps the calls made from a code range.
//
// TARGET names a module (any mapping whose path contains it; the first one wins); START and
// SIZE are hexadecimal, as `nm -S` prints them (a 0x prefix is allowed). For a shared object
// START is relative to the module's mapping; for an executable linked at a fixed address
// (ELF type ET_EXEC, looked up in the file) it is absolute; when the file cannot be read, a
// START that lies inside the module's mapping is taken as absolute. A call is kept
// when a frame of its backtrace lies in [START, START + SIZE); calls without a backtrace are
// dropped. When no mapping matches TARGET the filter keeps everything and warns.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "model/trace_sink.h"

namespace rtrace {

struct CallAddressRange {
  std::string target;
  Address start = 0;
  std::uint64_t size = 0;
};

// Parses TARGET:START+SIZE; nullopt when malformed.
std::optional<CallAddressRange> parse_call_address(std::string_view text);

class CallAddressFilter final : public ForwardingSink {
 public:
  using Warn = std::function<void(std::string_view)>;

  CallAddressFilter(TraceSink& next, CallAddressRange range, Warn warn)
      : ForwardingSink(next), range_(std::move(range)), warn_(std::move(warn)) {}

  void mapping(const Mapping& mapping) override;
  void call(const CallRecord& record) override;
  void finish() override;

 private:
  void check_found();

  CallAddressRange range_;
  Warn warn_;
  std::optional<Address> absolute_start_;
  bool warned_ = false;
};

}  // namespace rtrace
