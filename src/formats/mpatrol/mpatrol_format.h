// mpatrol tracing files' entry in the format table.
#pragma once

#include "formats/format_registry.h"

namespace rtrace {

TraceFormatInfo mpatrol_format();

}  // namespace rtrace
