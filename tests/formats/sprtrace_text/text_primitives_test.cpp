// The text protocol's hot-line primitives against plain reference implementations: the
// word-at-a-time control-byte test (every length and position around its 4- and 8-byte paths)
// and the decimal and hex formatters (every digit-count boundary).
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "formats/sprtrace_text/repeated_fields.h"
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

// Counting up (every carry up to six digits), then numbers that do not follow the one before,
// around the carries and the largest number.
TEST(TextPrimitives, CountingDecimalIsEveryNumbersDecimal) {
  sprtrace_text::CountingDecimal counter;
  const auto expect = [&counter](std::uint64_t value) {
    char reference[kMaxDigits];
    char* reference_end = std::to_chars(reference, reference + kMaxDigits, value).ptr;
    char ours[kMaxDigits];
    char* end = counter.write(ours, value);
    ASSERT_EQ(std::string_view(ours, end - ours),
              std::string_view(reference, reference_end - reference))
        << value;
  };
  for (std::uint64_t value = 0; value <= 1'000'001; ++value) {
    expect(value);
  }
  for (const std::uint64_t value :
       {std::uint64_t{5}, std::uint64_t{5}, std::uint64_t{4}, std::uint64_t{9}, std::uint64_t{10},
        std::uint64_t{99}, std::uint64_t{100}, std::uint64_t{1}, ~std::uint64_t{0} - 1,
        ~std::uint64_t{0}, std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{9'999'999'999},
        std::uint64_t{10'000'000'000}, std::uint64_t{10'000'000'001}, std::uint64_t{7}}) {
    expect(value);
  }
}

// Every millisecond of the first two seconds and around each minute and hour of a day, in order
// and out of order.
TEST(TextPrimitives, MillisecondStampIsPrintfs) {
  sprtrace_text::MillisecondStamp stamp;
  const auto expect = [&stamp](std::uint32_t ms) {
    char reference[32];
    std::snprintf(reference, sizeof reference, "[%02u:%02u:%02u.%03u] ", ms / 3'600'000,
                  ms / 60'000 % 60, ms / 1000 % 60, ms % 1000);
    ASSERT_EQ(std::string_view(stamp.text(ms), sprtrace_text::MillisecondStamp::kLength),
              std::string_view(reference))
        << ms;
  };
  for (std::uint32_t ms = 0; ms < 2000; ++ms) {
    expect(ms);
    expect(ms);
  }
  for (std::uint32_t minute = 1; minute < 24 * 60; ++minute) {
    expect(minute * 60'000 - 1);
    expect(minute * 60'000);
    expect(minute * 60'000 - 1);
  }
  expect(24 * 3'600'000 - 1);
}

}  // namespace
}  // namespace rtrace::test
