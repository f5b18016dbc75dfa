// Puts the memory maps that a trace records after its first call (a library loaded later) before
// that call, where the original post-processor prints every map.
//
// `late` are those maps in order, read ahead by a first pass over the input (read_late_maps of
// the binary reader); the same maps are dropped where they stand: the first late.size() maps
// after the first call. Only input that can be read twice (a file, not a pipe) gets this stage.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace {

class LateMapsFirst final : public ForwardingSink {
 public:
  LateMapsFirst(TraceSink& next, std::vector<Mapping> late)
      : ForwardingSink(next), late_(std::move(late)) {}

  void mapping(const Mapping& mapping) override {
    if (seen_call_ && dropped_ < late_.size()) {
      ++dropped_;  // delivered before the first call
      return;
    }
    next().mapping(mapping);
  }

  void call(const CallRecord& record) override {
    if (!seen_call_) {
      seen_call_ = true;
      for (const Mapping& mapping : late_) {
        next().mapping(mapping);
      }
    }
    next().call(record);
  }

 private:
  std::vector<Mapping> late_;
  bool seen_call_ = false;
  std::size_t dropped_ = 0;
};

}  // namespace rtrace
