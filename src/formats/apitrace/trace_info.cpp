#include "formats/apitrace/trace_info.h"

#include <fmt/format.h>

#include "io/json_string.h"

namespace rtrace::apitrace {

TraceInfo collect_info(const std::string& file_name, const OpenedTrace& opened, Decoder& decoder) {
  TraceInfo info;
  info.file_name = file_name;
  info.version = decoder.header().version;
  info.container = opened.container;
  info.container_size = opened.file_size;
  // A frame spans the stream from the end of the previous frame (the first one from the very
  // start, header included) to the end of the event that completed its end-of-frame call.
  std::uint64_t frame_start = 0;
  FrameInfo frame;
  bool open = false;
  while (const Call* call = decoder.next()) {
    if (!open) {
      frame = FrameInfo{call->number, call->number, 0, 0};
      open = true;
    }
    frame.last_call = call->number;
    ++frame.calls;
    if ((call->flags & kFlagEndFrame) != 0) {
      frame.bytes = decoder.offset() - frame_start;
      frame_start = decoder.offset();
      info.frames.push_back(frame);
      open = false;
    }
  }
  info.api = decoder.api();
  info.data_size = decoder.offset();
  return info;
}

std::string info_json(const TraceInfo& info, bool with_frames) {
  std::string out = "{\n";
  out += fmt::format("  \"FileName\": {},\n", json_string(info.file_name));
  out += fmt::format("  \"ContainerVersion\": {},\n", info.version);
  out += fmt::format("  \"ContainerType\": {},\n", json_string(container_name(info.container)));
  out += fmt::format("  \"API\": {},\n", json_string(api_name(info.api)));
  out += fmt::format("  \"FramesCount\": {},\n", info.frames.size());
  out += fmt::format("  \"ActualDataSize\": {},\n", info.data_size);
  out += fmt::format("  \"ContainerSize\": {}", info.container_size);
  if (with_frames) {
    // apitrace's layout, including `[{ }]` for a trace without a complete frame.
    out += ",\n  \"Frames\": [{\n";
    for (std::size_t i = 0; i < info.frames.size(); ++i) {
      const FrameInfo& f = info.frames[i];
      if (i > 0) {
        out += "  }, {\n";
      }
      out += fmt::format(
          "    \"FirstCallId\": {},\n    \"LastCallId\": {},\n    \"TotalCalls\": {},\n"
          "    \"SizeInBytes\": {}\n",
          f.first_call, f.last_call, f.calls, f.bytes);
    }
    out += "  }]";
  }
  out += "\n}\n";
  return out;
}

}  // namespace rtrace::apitrace
