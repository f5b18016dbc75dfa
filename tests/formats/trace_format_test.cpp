#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "formats/format_registry.h"

namespace rtrace {
namespace {

std::span<const std::uint8_t> bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string_view detected(std::string_view head) {
  const TraceFormatInfo* format = detect_format(bytes(head));
  return format == nullptr ? "none" : format->name;
}

TEST(DetectFormat, ByFirstBytes) {
  EXPECT_EQ(detected("\xf0\x0e\x02\x00"), "binary");
  EXPECT_EQ(detected("version=2.0, arch=x86_64"), "text");
  EXPECT_EQ(detected(std::string_view("MTRC\x01\x00", 6)), "mpatrol");
  EXPECT_EQ(detected(std::string_view("at\x00\x00", 4)), "apitrace");
  EXPECT_EQ(detected(std::string_view("\x89RTC\r\n\x1a\n\x01\x00", 10)), "compact");
  EXPECT_EQ(detected(std::string_view("\x89RTC\r\n\x1a", 7)), "none");
  EXPECT_EQ(detected("hello"), "none");
  EXPECT_EQ(detected(""), "none");
  EXPECT_EQ(detected("versio"), "none");
}

TEST(FormatTable, NamesAreUniqueAndWritersHaveSuffixes) {
  for (const TraceFormatInfo& format : trace_formats()) {
    EXPECT_EQ(find_format(format.name), &format) << format.name;
    ASSERT_NE(format.detect, nullptr) << format.name;
    if (format.open_writer != nullptr) {
      EXPECT_FALSE(format.suffix.empty()) << format.name;
    }
  }
}

// Each format's folder declares its table entry's name to CMake (rtrace_trace_format), which
// makes its fuzz target: the two lists must name the same formats.
TEST(FormatTable, EveryFormatIsDeclaredForItsFuzzTarget) {
  std::vector<std::string> declared;
  std::string_view list = RTRACE_DECLARED_FORMATS;
  for (std::size_t comma; (comma = list.find(',')) != std::string_view::npos;
       list.remove_prefix(comma + 1)) {
    declared.emplace_back(list.substr(0, comma));
  }
  declared.emplace_back(list);
  std::vector<std::string> table;
  for (const TraceFormatInfo& format : trace_formats()) {
    table.emplace_back(format.name);
  }
  std::ranges::sort(declared);
  std::ranges::sort(table);
  EXPECT_EQ(declared, table);
}

}  // namespace
}  // namespace rtrace
