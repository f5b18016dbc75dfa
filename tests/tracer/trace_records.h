// Records of decoded traces as short text, for the tests to compare with what the traced
// programs say they did: "name(size) = 0xid" for an allocation, "name(0xid)" for a release, each
// followed by its arguments " name=value"; and the descriptor and stream calls a program
// announces with announce_files() (programs/announce_files.h) in the same form.
#pragma once

#include <algorithm>
#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "trace_decoder.h"

namespace rtrace::test {

inline std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// "name(size) = 0xid" / "name(0xid)", as the text protocol writes them.
inline std::string describe(const DecodedCall& call) {
  if (call.kind == 2) {
    return call.name + "(" + std::to_string(call.size) + ") = " + hex(call.id);
  }
  return call.name + "(" + hex(call.id) + ")";
}

// The records of one resource type, each with its arguments.
inline std::vector<std::string> describe_objects(const TraceDecoder& trace, std::uint32_t type) {
  std::vector<std::string> calls;
  for (const DecodedCall& call : trace.calls) {
    if (call.resource_type != type) {
      continue;
    }
    std::string text = describe(call);
    for (const auto& [name, value] : call.args) {
      text.append(" ").append(name).append("=").append(value);
    }
    calls.push_back(text);
  }
  return calls;
}

// The file module's records of a program's announce_files() lines: "file open 0x3 path=...
// flags=0x241" is the allocation "open(1) = 0x3 path=... flags=0x241", "file close 0x3" the
// release "close(0x3)". `names`: the calls of one type (open and close for fd, fopen and fclose
// for fp).
inline std::vector<std::string> announced_files(const std::string& output,
                                                const std::vector<std::string>& names) {
  static const std::regex line(R"(^file (\w+) (0x[0-9a-f]+)((?: \w+=\S+)*)$)");
  std::vector<std::string> expected;
  std::istringstream lines(output);
  std::string text;
  std::smatch m;
  while (std::getline(lines, text)) {
    if (!std::regex_match(text, m, line) ||
        std::find(names.begin(), names.end(), m[1].str()) == names.end()) {
      continue;
    }
    expected.push_back(m[3].length() == 0 ? m[1].str() + "(" + m[2].str() + ")"
                                          : m[1].str() + "(1) = " + m[2].str() + m[3].str());
  }
  return expected;
}

}  // namespace rtrace::test
