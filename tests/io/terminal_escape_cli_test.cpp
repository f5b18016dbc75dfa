// Terminal escapes in a (hostile) trace's names and notes never reach the terminal: report's text,
// the warnings on standard error and the folded, callgraph and massif exports print every
// control character as `\xHH` (io/terminal_text.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/compact_protocol.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::run_command;
using test::ScratchDir;

std::string varint(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}
std::string str(std::string_view text) {
  return varint(text.size()) + std::string(text);
}
std::string record(compact::Tag tag, const std::string& payload) {
  return static_cast<char>(tag) + varint(payload.size()) + payload;
}

// A compact trace whose process, resource type, library path and note set the window title,
// clear the screen, ring the bell and draw in red; one leaked allocation made in that library.
std::string hostile_trace() {
  using compact::Tag;
  std::string trace(compact::kMagic, compact::kMagicSize);
  trace += '\x02';
  trace += '\x00';
  trace += record(Tag::Trace,
                  str("x86_64") + varint(8) + varint(0) + varint(1'000'000) + str("") + varint(0));
  trace += record(Tag::Process,
                  varint(7) + varint(0) + varint(0) + varint(0) + str("\x1b]0;owned\x07prog"));
  trace += record(Tag::Resource, varint(1) + varint(0) + str("mem\x1b[31m") + str("bytes\r"));
  trace += record(Tag::Mapping, varint(0x400000) + varint(0x1000) + str("/no/lib\x1b[2J.so"));
  trace += record(Tag::Function, str("malloc"));
  trace += record(Tag::Stack, varint(1) + varint(compact::zigzag(0x400123)));
  constexpr char kAllocWithTypeAndTime = 0x02 | 0x40 | 0x20;
  trace += record(Tag::Call, std::string(1, kAllocWithTypeAndTime) + varint(1) + varint(1) +
                                 varint(0) + varint(compact::zigzag(5)) +
                                 varint(compact::zigzag(0x1000)) + varint(16) + varint(1));
  trace += record(Tag::End, varint(1) + varint(0) + varint(4096) + varint(4096) + varint(10));
  trace += record(Tag::Note, str("\x1b[31mred\x9b"
                                 "2J\xc2\x9b"
                                 "2J\x1b[0m"));
  return trace;
}

TEST(TerminalEscapeCli, NoControlCharacterOfATraceReachesTheTerminal) {
  const ScratchDir dir;
  test::write_file(dir / "hostile.rtrace", hostile_trace());
  const std::string input = test::quoted(dir / "hostile.rtrace");
  for (const std::string& command : {"report " + input, "export folded " + input,
                                    "export callgraph " + input, "export massif " + input}) {
    const auto r = run_command(test::built_tool("rtrace") + " " + command);
    ASSERT_EQ(r.status, 0) << command << "\n" << r.err;
    for (const std::string& output : {r.out, r.err}) {
      for (const char control : {'\x1b', '\x07', '\r', '\x9b'}) {
        EXPECT_EQ(output.find(control), std::string::npos) << command << "\n" << output;
      }
      EXPECT_EQ(output.find("\xc2\x9b"), std::string::npos) << command << "\n" << output;
    }
    // The note, on standard error, with every control character escaped.
    EXPECT_NE(r.err.find(": warning: writer's note: \\x1b[31mred\\x9b2J\\xc2\\x9b2J\\x1b[0m\n"),
              std::string::npos)
        << command << "\n"
        << r.err;
    // The library's name in the frame (callgraph's dot strings escape the backslash again).
    EXPECT_NE(r.out.find("\\x1b[2J.so"), std::string::npos) << command << "\n" << r.out;
  }
  const auto report = run_command(test::built_tool("rtrace") + " report " + input);
  EXPECT_NE(report.out.find("rtrace report: \\x1b]0;owned\\x07prog (pid 7)"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("mem\\x1b[31m (bytes\\x0d)"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace rtrace
