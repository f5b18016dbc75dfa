#include "formats/trace_format.h"

#include <gtest/gtest.h>

#include <string_view>

namespace rtrace {
namespace {

std::span<const std::uint8_t> bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

TEST(DetectFormat, ByFirstBytes) {
  EXPECT_EQ(detect_format(bytes("\xf0\x0e\x02\x00")), TraceFormat::SpRtraceBinary);
  EXPECT_EQ(detect_format(bytes("version=2.0, arch=x86_64")), TraceFormat::SpRtraceText);
  EXPECT_EQ(detect_format(bytes("MTRC\x01\x00")), TraceFormat::Mpatrol);
  EXPECT_EQ(detect_format(bytes("at\x00\x00")), TraceFormat::Apitrace);
  EXPECT_EQ(detect_format(bytes("hello")), TraceFormat::Unknown);
  EXPECT_EQ(detect_format(bytes("")), TraceFormat::Unknown);
  EXPECT_EQ(detect_format(bytes("versio")), TraceFormat::Unknown);
}

}  // namespace
}  // namespace rtrace
