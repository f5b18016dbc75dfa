// The text protocol's hot-line primitives against plain reference implementations: the
// word-at-a-time control-byte test (every length and position around its 4- and 8-byte paths)
// and the decimal and hex formatters (every digit-count boundary).
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <string>

#include "formats/sprtrace_text/text_characters.h"
#include "formats/sprtrace_text/text_escape.h"
#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace::test {
namespace {

using sprtrace_text::has_control_character;
using sprtrace_text::kMaxDigits;
using sprtrace_text::write_decimal;
using sprtrace_text::write_hex;

bool has_control_character_reference(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 && c != '\t') {
      return true;
    }
  }
  return false;
}

// Every byte value at every position of strings of 0 to 24 bytes, amid plain text, TABs and
// high bytes (which must not hide a control byte or pass for one).
TEST(TextPrimitives, ControlCharacterAtEveryPositionAndLength) {
  const std::string fillers[] = {"abcdefghijklmnopqrstuvwxyz", std::string(26, '\t'),
                                 std::string(26, '\xff'), std::string(26, ' ')};
  for (const std::string& filler : fillers) {
    for (std::size_t size = 0; size <= 24; ++size) {
      const std::string plain = filler.substr(0, size);
      EXPECT_FALSE(has_control_character(plain)) << size;
      for (std::size_t at = 0; at < size; ++at) {
        for (int byte = 0; byte < 256; ++byte) {
          std::string text = plain;
          text[at] = static_cast<char>(byte);
          ASSERT_EQ(has_control_character(text), has_control_character_reference(text))
              << "size " << size << " at " << at << " byte " << byte;
        }
      }
    }
  }
}

TEST(TextPrimitives, PrintableEscapesShortNames) {
  std::string scratch;
  EXPECT_EQ(sprtrace_text::printable("malloc", scratch), "malloc");
  EXPECT_EQ(sprtrace_text::printable("", scratch), "");
  EXPECT_EQ(sprtrace_text::printable("ma\nloc", scratch), "ma\\x0aloc");
  EXPECT_EQ(sprtrace_text::printable("free\r", scratch), "free\\x0d");
  EXPECT_EQ(sprtrace_text::printable("a\tb", scratch), "a\tb");
}

void expect_decimal(std::uint64_t value) {
  char ours[kMaxDigits];
  char reference[kMaxDigits];
  char* end = write_decimal(ours, value);
  char* reference_end = std::to_chars(reference, reference + kMaxDigits, value).ptr;
  ASSERT_EQ(std::string(ours, end), std::string(reference, reference_end)) << value;
}

TEST(TextPrimitives, DecimalAtEveryDigitCountBoundary) {
  for (std::uint64_t value = 0; value < 100'000; ++value) {
    expect_decimal(value);
  }
  std::uint64_t power = 1;
  for (int digits = 1; digits <= 19; ++digits) {
    power *= 10;
    expect_decimal(power - 1);
    expect_decimal(power);
    expect_decimal(power + 1);
  }
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t value = std::uint64_t{1} << bit;
    expect_decimal(value - 1);
    expect_decimal(value);
    expect_decimal(value + 1);
  }
  expect_decimal(~std::uint64_t{0});
}

TEST(TextPrimitives, HexAtEveryDigitCountBoundary) {
  for (int bit = 0; bit < 64; ++bit) {
    for (const std::uint64_t value :
         {std::uint64_t{1} << bit, (std::uint64_t{1} << bit) - 1, ~std::uint64_t{0} >> bit}) {
      char ours[kMaxDigits];
      char reference[kMaxDigits];
      char* end = write_hex(ours, value);
      char* reference_end = std::to_chars(reference, reference + kMaxDigits, value, 16).ptr;
      ASSERT_EQ(std::string(ours, end), std::string(reference, reference_end)) << value;
    }
  }
}

}  // namespace
}  // namespace rtrace::test
