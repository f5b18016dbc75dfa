#include "formats/mpatrol/mpatrol_format.h"

#include "formats/mpatrol/mpatrol_model_reader.h"

namespace rtrace {

TraceFormatInfo mpatrol_format() {
  return {
      .name = "mpatrol",
      .description = "mpatrol tracing file",
      .suffix = {},  // rtrace writes none
      .detect = [](std::span<const std::uint8_t> head) { return starts_with(head, "MTRC"); },
      .read = mpatrol::read_mpatrol_trace,
      // Read only: rtrace writes no mpatrol files from the model (the writer in this folder
      // makes test and benchmark inputs from mpatrol events). `losses` describes what a trace
      // loses when written in a format, so it stays empty; what reading an mpatrol file cannot
      // carry into the model is in mpatrol_model_reader.h.
      .open_writer = nullptr,
      .losses = kLosesNothing,
  };
}

}  // namespace rtrace
