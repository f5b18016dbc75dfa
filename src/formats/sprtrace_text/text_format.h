// The sp-rtrace text protocol's entry in the format table.
#pragma once

#include "formats/format_registry.h"

namespace rtrace {

TraceFormatInfo sprtrace_text_format();

}  // namespace rtrace
