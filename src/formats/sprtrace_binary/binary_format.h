// The sp-rtrace binary protocol's entry in the format table.
#pragma once

#include "formats/format_registry.h"

namespace rtrace {

TraceFormatInfo sprtrace_binary_format();

}  // namespace rtrace
