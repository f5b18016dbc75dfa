// The compact rtrace recording format's entry in the format table.
#pragma once

#include "formats/format_registry.h"

namespace rtrace {

TraceFormatInfo compact_format();

}  // namespace rtrace
