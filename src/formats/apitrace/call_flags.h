// What apitrace knows about a function from its name alone (not stored in the trace): whether it
// is a query without side effects, too chatty to show by default, ends a frame, draws, or marks.
// `apitrace dump` and `info` depend on it (hidden calls, bold names, frame breaks).
#pragma once

#include <cstdint>
#include <string_view>

namespace rtrace::apitrace {

// CallFlag bits (call.h) for a function name.
std::uint32_t call_flags_for(std::string_view function_name);

}  // namespace rtrace::apitrace
