// The CHECKPOINTS section of the text report (see checkpoint_profile.h); empty when the trace
// has no call that neither allocates nor releases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/checkpoint_profile.h"

namespace rtrace::reports {

// The `top` most hit scopes (equal counts in order of first hit), with a line saying how many
// more there are. Times are shown since `start_ns` (the trace's first timestamp).
std::string render_checkpoints(const std::vector<CheckpointStats>& checkpoints, std::size_t top,
                               std::uint64_t start_ns);

}  // namespace rtrace::reports
