// How the report names code: one backtrace frame expanded into the functions it stands for
// (inlined calls included), the identity of a frame that survives address randomisation, and
// C++ names with their template arguments left out (--short-templates).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/report_data.h"

namespace rtrace::reports {

// One function of a backtrace: a frame of the trace, or one of the calls inlined into it.
struct LogicalFrame {
  std::string label{};     // what a reader sees: "parse(char const*) at parser.c:12"
  std::string function{};  // the function's name without parameters; empty when unresolved
  std::string module{};    // where the code lies; may be empty
  std::string key{};       // equal for the same code in another run of the same program
  bool inlined = false;    // inlined into the next logical frame
};

// The functions `frame` stands for, innermost first: the function the address lies in and,
// when the compiler inlined calls there, each inlined function before the one it was inlined
// into.
std::vector<LogicalFrame> logical_frames(const FrameDetail& frame);

// What identifies a frame across runs: its module and offset when the trace's maps place it,
// else its resolved names and lines, else (nothing better) its address.
std::string frame_key(const FrameDetail& frame);

// `text` with every template argument list emptied: "std::vector<int, std::allocator<int> >
// ::push_back(int const&)" -> "std::vector<>::push_back(int const&)". Operators named with
// angle brackets (operator<<, operator<=>, operator->...) are kept.
std::string shorten_templates(std::string_view text);

}  // namespace rtrace::reports
