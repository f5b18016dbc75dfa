// The pipeline builder every command uses: reader (any format in the table) -> stages (by name,
// from the stage table) -> one sink (a writer, an export, a report).
//
// One policy for damaged input: the reader delivers everything complete before the damage, the
// stages and the sink finish on it, and run() hands the damage back instead of throwing it, so
// that the command writes (or prints) that partial result first and reports the error after.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "pipeline/stage_registry.h"
#include "formats/format_registry.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "model/trace_sink.h"

namespace rtrace {

class Pipeline {
 public:
  // Builds `stages` in order in front of `sink`. Throws StageOptionError for an unknown stage or
  // a bad argument.
  Pipeline(std::span<const StageSpec> stages, const StageContext& context, TraceSink& sink);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Where a reader pushes records.
  TraceSink& head() { return *head_; }

  // Reads `input` through the stages into the sink; finish() has reached the sink when it
  // returns. Returns the damage, if the input was damaged; throws only what is not about the
  // input (a write error, out of memory).
  std::optional<InputError> run(InputStream& input, Diagnostics& diagnostics);

 private:
  std::vector<std::unique_ptr<TraceSink>> stages_;  // the head last
  TraceSink* head_;
};

// Builds every stage of `stages` once in front of a sink that drops everything: a bad option
// is reported before any input is opened or any output created.
void check_stages(std::span<const StageSpec> stages, const StageContext& context);

}  // namespace rtrace
