#include "pipeline/pipeline.h"

namespace rtrace {
Pipeline::Pipeline(std::span<const StageSpec> stages, const StageContext& context, TraceSink& sink)
    : head_(&sink) {
  // Built from the sink backwards: the last stage to run is made first.
  for (auto spec = stages.rbegin(); spec != stages.rend(); ++spec) {
    stages_.push_back(find_stage(spec->name).make(*head_, spec->argument, context));
    head_ = stages_.back().get();
  }
}

std::optional<InputError> Pipeline::run(InputStream& input, Diagnostics& diagnostics) {
  try {
    read_trace(input, *head_, diagnostics);
  } catch (const InputError& damage) {
    return damage;
  }
  return std::nullopt;
}

void check_stages(std::span<const StageSpec> stages, const StageContext& context) {
  DiscardingSink sink;
  const Pipeline pipeline(stages, context, sink);
}

}  // namespace rtrace
