// LeakSanitizer's pattern matching for suppressions: a pattern matches a name (a function, a
// source file, a module path) when it occurs anywhere in it; `*` matches any run of characters;
// a leading `^` anchors the pattern at the start of the name and a trailing `$` at its end.
// (sanitizer_common's TemplateMatch behaves so; heaptrack reads the same files.)
#pragma once

#include <string_view>

namespace rtrace {

bool suppression_pattern_matches(std::string_view pattern, std::string_view text);

}  // namespace rtrace
