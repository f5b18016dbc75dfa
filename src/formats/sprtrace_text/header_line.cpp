#include "formats/sprtrace_text/header_line.h"

#include <ctime>

#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace::sprtrace_text {
namespace {

constexpr std::string_view kSeparator = ", ";

// Keys are lower-case words (`backtrace depth` has a space); a value ends at the `, ` that is
// followed by the next key and its `=`, so values may themselves hold commas.
bool starts_with_key(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && ((text[n] >= 'a' && text[n] <= 'z') || text[n] == ' ')) {
    ++n;
  }
  return n > 0 && n < text.size() && text[n] == '=';
}

std::size_t value_end(std::string_view line, std::size_t from) {
  for (;;) {
    const std::size_t separator = line.find(kSeparator, from);
    if (separator == std::string_view::npos) {
      return line.size();
    }
    const std::string_view rest = line.substr(separator + kSeparator.size());
    if (rest.find_first_not_of(' ') == std::string_view::npos || starts_with_key(rest)) {
      return separator;
    }
    from = separator + 1;
  }
}

bool is_version(std::string_view text) {
  const std::size_t dot = text.find('.');
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  return dot != std::string_view::npos && parse_decimal(text.substr(0, dot), major) &&
         parse_decimal(text.substr(dot + 1), minor);
}

void parse_filters(std::string_view text, AppliedStages& filters) {
  while (!text.empty()) {
    const std::size_t bar = text.find('|');
    const std::string_view name = text.substr(0, bar);
    if (name == "leaks") {
      filters.leaks = true;
    } else if (name == "resolve") {
      filters.resolve = true;
    } else if (name == "compress") {
      filters.compress = true;
    }
    text = bar == std::string_view::npos ? std::string_view() : text.substr(bar + 1);
  }
}

// `year.month.day HH:MM:SS` in local time, as the original's mktime() read it.
void parse_start_time(std::string_view text, TimeOfDay& start) {
  constexpr char kSeparators[] = {'.', '.', ' ', ':', ':', '\0'};
  int values[6] = {};
  for (std::size_t i = 0; i < 6; ++i) {
    const std::size_t end = kSeparators[i] == '\0' ? text.size() : text.find(kSeparators[i]);
    if (end == std::string_view::npos || !parse_decimal(text.substr(0, end), values[i])) {
      return;
    }
    text.remove_prefix(end == text.size() ? end : end + 1);
  }
  std::tm tm{};
  tm.tm_year = values[0] - 1900;
  tm.tm_mon = values[1] - 1;
  tm.tm_mday = values[2];
  tm.tm_hour = values[3];
  tm.tm_min = values[4];
  tm.tm_sec = values[5];
  tm.tm_isdst = -1;
  const std::time_t seconds = std::mktime(&tm);
  if (seconds != static_cast<std::time_t>(-1)) {
    start.seconds = seconds;
  }
}

std::string_view apply_field(std::string_view key, std::string_view value, HeaderFields& fields) {
  TraceHeader& header = fields.header;
  ProcessInfo& process = fields.process;
  if (key == "version") {
    if (!is_version(value)) {
      return "bad version in the header";
    }
    header.metadata.set(kTextVersionKey, value);
  } else if (key == "arch") {
    header.arch = value;
  } else if (key == "timestamp") {
    header.metadata.set(kTimestampKey, value);
    parse_start_time(value, process.start);
  } else if (key == "process") {
    process.name = value;
  } else if (key == "pid") {
    if (!parse_decimal(value, process.pid)) {
      return "bad pid in the header";
    }
  } else if (key == "filter") {
    parse_filters(value, header.applied);
  } else if (key == "backtrace depth") {
    std::uint32_t depth = 0;
    if (!parse_decimal(value, depth)) {
      return "bad backtrace depth in the header";
    }
    process.backtrace_depth = depth;
  } else if (key == "origin") {
    header.origin = value;
  }
  return {};
}

}  // namespace

bool is_header_line(std::string_view line) {
  return line.starts_with("version=");
}

std::string_view parse_header_line(std::string_view line, HeaderFields& fields) {
  fields.header.metadata.set(kReadFromTextKey, "yes");
  std::size_t position = 0;
  while (position < line.size()) {
    const std::size_t equals = line.find('=', position);
    if (equals == std::string_view::npos) {
      break;  // trailing blanks after the last `, `
    }
    const std::size_t end = value_end(line, equals + 1);
    const std::string_view key = line.substr(position, equals - position);
    const std::string_view value = line.substr(equals + 1, end - equals - 1);
    if (const std::string_view error = apply_field(key, value, fields); !error.empty()) {
      return error;
    }
    position = end + kSeparator.size();
  }
  return {};
}

}  // namespace rtrace::sprtrace_text
