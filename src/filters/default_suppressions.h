// The suppressions file shipped with rtrace (default.supp): the blocks that runtimes (libstdc++,
// glibc, the dynamic loader) allocate for the process's lifetime and never free, each with the
// reason. `rtrace report` and `rtrace process -l` apply it unless --no-default-suppressions.
//
// Installed, it lies in share/rtrace/ relative to the commands (as the install rules put it, so
// the installed tree can move); the build tree's commands read the build's copy.
#pragma once

#include <string>
#include <string_view>

namespace rtrace {

// The name the default file's rules are credited to in reports ("default.supp:12"), whatever
// folder it was found in, so that a report reads the same from every install.
inline constexpr std::string_view kDefaultSuppressionsName = "default.supp";

// The path of the shipped file. Throws std::runtime_error when neither the installed nor the
// build tree's copy exists.
std::string default_suppressions_path();

}  // namespace rtrace
