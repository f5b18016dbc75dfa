#include "probe_output.h"

#include <gtest/gtest.h>

#include <sstream>

#include "support/test_paths.h"

namespace rtrace::test {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) {
    fields.push_back(field);
  }
  return fields;
}

Address parse_address(const std::string& text) {
  return std::stoull(text, nullptr, 16);
}

}  // namespace

ProbeOutput run_probe(const std::string& program, const std::string& arguments) {
  const CommandResult result = run_command(program + " " + arguments);
  EXPECT_EQ(result.status, 0) << program << ": " << result.err;
  ProbeOutput output;
  std::istringstream lines(result.out);
  std::string line;
  while (std::getline(lines, line)) {
    const std::vector<std::string> fields = split_tabs(line);
    if (fields.size() == 4 && fields[0] == "map") {
      output.maps.push_back({parse_address(fields[1]), parse_address(fields[2]), fields[3]});
    } else if (fields.size() >= 4 && fields.size() % 2 == 0 && fields[0] == "frame") {
      ProbeFrame frame{parse_address(fields[1]), fields[2], fields[3], {}};
      for (std::size_t i = 4; i + 1 < fields.size(); i += 2) {
        frame.inlined_by.push_back({fields[i], fields[i + 1]});
      }
      output.frames.push_back(frame);
    } else if (fields.size() == 2 && fields[0] == "libc") {
      output.libc_frame = parse_address(fields[1]);
    } else {
      ADD_FAILURE() << program << " printed an unexpected line: " << line;
    }
  }
  EXPECT_FALSE(output.maps.empty()) << program;
  EXPECT_FALSE(output.frames.empty()) << program;
  return output;
}

const ProbeFrame& frame_of(const ProbeOutput& output, const std::string& function) {
  for (const ProbeFrame& frame : output.frames) {
    if (frame.function == function) {
      return frame;
    }
  }
  ADD_FAILURE() << "no probe frame for " << function;
  static const ProbeFrame none;
  return none;
}

}  // namespace rtrace::test
