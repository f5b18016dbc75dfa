// What the sizes of a resource type count, for the report's sentences ("3 descriptors alive"):
// "bytes" for memory, the things themselves for resources whose every allocation has size 1
// (file descriptors, streams, GL objects, ...). Decided from the type's name and description
// as the trace registers them, for any trace format.
#pragma once

#include <string>

#include "model/records.h"

namespace rtrace::reports {

// "bytes" when the description speaks of bytes (or there is none); "descriptors" for `fd`,
// "streams" for `fp` (the file module's FILE pointers); otherwise the description's last word in
// the plural, a remark in parentheses aside ("shared memory segment" -> "segments",
// "EGL image (handle)" -> "images").
std::string size_unit(const ResourceType& type);

}  // namespace rtrace::reports
