// "-" as a file name: standard input where a file is read, standard output where one is written.
// Every command takes it for every file it reads or writes, through the functions that open
// files (input_stream.h, option_file.h, output_target.h), which all ask names_standard_stream().
#pragma once

#include <string_view>

namespace rtrace {

inline constexpr std::string_view kStandardStream = "-";

inline bool names_standard_stream(std::string_view path) {
  return path == kStandardStream;
}

}  // namespace rtrace
