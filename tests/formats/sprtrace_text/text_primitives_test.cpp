// The text protocol's hot-line primitives against plain reference implementations: the
// word-at-a-time control-byte test (every length and position around its 4- and 8-byte paths)
// and the decimal and hex formatters (every digit-count boundary).
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <utility>

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

// Every hex formatter this machine has: the one write_hex() uses and the portable one.
using HexWriter = char* (*)(char*, std::uint64_t);
constexpr std::pair<const char*, HexWriter> kHexWriters[] = {
    {"write_hex", write_hex},
    {"write_hex_words", sprtrace_text::write_hex_words},
#if defined(__SSE2__)
    {"write_hex_sse2", sprtrace_text::write_hex_sse2},
#endif
};

void expect_hex(std::uint64_t value) {
  char reference[kMaxDigits];
  char* reference_end = std::to_chars(reference, reference + kMaxDigits, value, 16).ptr;
  for (const auto& [name, writer] : kHexWriters) {
    char ours[kMaxDigits];
    char* end = writer(ours, value);
    ASSERT_EQ(std::string(ours, end), std::string(reference, reference_end))
        << name << " of " << value;
  }
}

TEST(TextPrimitives, HexAtEveryDigitCountBoundary) {
  for (int bit = 0; bit < 64; ++bit) {
    for (const std::uint64_t value :
         {std::uint64_t{1} << bit, (std::uint64_t{1} << bit) - 1, ~std::uint64_t{0} >> bit}) {
      expect_hex(value);
    }
  }
}

// Each of the 16 digits at each of the 16 places, among other digits and as the first one.
TEST(TextPrimitives, HexOfEveryDigitAtEveryPlace) {
  for (int place = 0; place < 16; ++place) {
    for (std::uint64_t digit = 0; digit < 16; ++digit) {
      expect_hex(digit << (4 * place));
      expect_hex(0x0123456789abcdefULL ^ (digit << (4 * place)));
      expect_hex(0xfedcba9876543210ULL >> (4 * place) ^ digit);
    }
  }
}

}  // namespace
}  // namespace rtrace::test
