// The default StackTrack layout: the one the 2005 document's sample was written in (its
// RAW_FORMAT version 100), as pinned down by NOTES.md, "Boost StackTrack raw events".
#pragma once

#include "formats/stacktrack/raw_layout.h"

namespace rtrace::stacktrack {

// Built once from the table in default_layout.cpp.
const RawLayout& default_layout();

}  // namespace rtrace::stacktrack
