// Standard input can be read only once: at most one of a command's files may be "-".
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/standard_stream.h"

namespace rtrace::cli {

struct FileOption {
  std::string_view option;  // how the user named it: "-i", "--include"
  std::string_view path;    // empty when the option was not given
};

// Nothing when at most one of `files` is standard input; otherwise what to tell the user.
inline std::optional<std::string> standard_input_twice(const std::vector<FileOption>& files) {
  std::optional<std::string_view> first;
  for (const FileOption& file : files) {
    if (!names_standard_stream(file.path)) {
      continue;
    }
    if (first && *first == file.option) {
      return fmt::format("standard input ('-') can be read only once, and {} names it twice",
                         file.option);
    }
    if (first) {
      return fmt::format("standard input ('-') can be read only once, and both {} and {} name it",
                         *first, file.option);
    }
    first = file.option;
  }
  return std::nullopt;
}

}  // namespace rtrace::cli
