// What `apitrace info [--dump-frames]` reports about a trace, as the same JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/apitrace/container.h"
#include "formats/apitrace/decoder.h"

namespace rtrace::apitrace {

struct FrameInfo {
  std::uint64_t first_call = 0;
  std::uint64_t last_call = 0;
  std::uint64_t calls = 0;
  std::uint64_t bytes = 0;  // of the decompressed stream
};

struct TraceInfo {
  std::string file_name;
  std::uint64_t version = 0;
  Container container = Container::Snappy;
  Api api = Api::Unknown;
  std::vector<FrameInfo> frames;  // complete frames (each ends with an end-of-frame call)
  std::uint64_t data_size = 0;    // the decompressed stream
  std::uint64_t container_size = 0;
};

// Reads every call of `decoder` (whose stream came from `opened`).
TraceInfo collect_info(const std::string& file_name, const OpenedTrace& opened, Decoder& decoder);

std::string info_json(const TraceInfo& info, bool with_frames);

}  // namespace rtrace::apitrace
