// The stages `rtrace process` / `sp-rtrace-postproc` put between the reader and the writer,
// named from the original post-processor's options.
#pragma once

#include <vector>

#include "cli/process_command.h"
#include "pipeline/stage_registry.h"

namespace rtrace::cli {

// In the order the original applies its options: expand (derived records of the input go;
// this run makes its own), context (-C), resource (-R), --include, --exclude, --call-address,
// depth (-b), -a, leaks (-l), compress and sort (-c, -s), resolve (-r). Throws StageOptionError
// for options that cannot go together.
std::vector<StageSpec> process_stages(const ProcessOptions& options);

// What the stages need besides their arguments (warnings unless -q; -r as the original's
// `sp-rtrace-resolve -telf`).
StageContext process_stage_context(const ProcessOptions& options);

// Throws StageOptionError when the options cannot be honoured (before any input is read).
void check_process_options(const ProcessOptions& options);

}  // namespace rtrace::cli
