// The table of stages: every post-processing step a pipeline can hold, by name.
//
// A pipeline is a list of StageSpec (name + argument), built by the pipeline builder
// (src/pipeline/pipeline.h) from the reader to the sink. Adding a stage: one file under
// src/filters/ with a ForwardingSink, and ONE line in the table in stage_registry.cpp; the
// command line maps its option to the stage name (cli/process_stages.cpp).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "filters/suppression_rules.h"
#include "model/trace_sink.h"
#include "symbols/resolve_options.h"

namespace rtrace {

// A stage argument that cannot be honoured (bad value); commands exit with status 2.
class StageOptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What stages may need besides their argument.
struct StageContext {
  symbols::ResolveOptions resolve;                         // for "resolve"
  std::function<void(std::string_view)> warn;              // a warning for the user (may be empty)
  std::shared_ptr<const SuppressionRules> suppressions{};  // for "suppress" (null: none)
};

struct StageSpec {
  std::string name;
  std::string argument;  // empty when the stage takes none
};

struct StageInfo {
  std::string_view name;
  std::string_view description;
  // A stage that forwards to `next`; throws StageOptionError for a bad argument.
  std::unique_ptr<TraceSink> (*make)(TraceSink& next, std::string_view argument,
                                     const StageContext& context) = nullptr;
};

std::span<const StageInfo> stages();
// The stage called `name`; throws StageOptionError when there is none.
const StageInfo& find_stage(std::string_view name);

}  // namespace rtrace
