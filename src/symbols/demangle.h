// Function names as the resolved text protocol prints them.
#pragma once

#include <string>
#include <string_view>

namespace rtrace::symbols {

// A C++ mangled name comes out demangled with its parameters ("ns::f(int)"); any other name (C,
// or a C++ name that does not demangle) gets "()" appended, as the original resolver prints it.
// A compiler-made copy's suffix (".cold", ".isra.0") is dropped. An empty name stays empty.
std::string display_function_name(std::string_view linkage_name);

}  // namespace rtrace::symbols
