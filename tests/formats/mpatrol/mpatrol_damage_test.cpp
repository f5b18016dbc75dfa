// The mpatrol decoder on damaged input: every complete record before the damage is delivered,
// then a warning (the input just stops) or an InputError naming the byte offset (corrupt data).
#include <gtest/gtest.h>

#include <string>

#include "formats/mpatrol/mpatrol_test_support.h"
#include "formats/mpatrol/mpatrol_writer.h"
#include "support/sweep.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using mpatrol::Ending;
using mpatrol::TraceWriter;
using test::decode_bytes;
using test::fixture;
using test::read_file;

constexpr std::size_t kBasicHeader = 20;

// basic.trace cut after every byte: never a crash; a cut header is an error, a cut anywhere
// else delivers exactly the records that end before the cut, then ends with a warning.
TEST(MpatrolDamage, TruncationAtEveryByteKeepsEveryCompleteRecord) {
  const std::string bytes = read_file(fixture("mpatrol/basic/basic.trace"));
  const auto whole = decode_bytes(bytes);
  ASSERT_FALSE(whole->failed);
  const auto& all = whole->visitor.events_;
  const std::uint64_t marker = bytes.size() - 4;
  const auto record_end = [&](std::size_t i) {
    return i + 1 < all.size() ? all[i + 1].offset : marker;
  };
  for (const std::size_t cut : test::sweep(0, bytes.size())) {
    SCOPED_TRACE(cut);
    const auto r = decode_bytes(bytes.substr(0, cut));
    if (cut < kBasicHeader) {
      EXPECT_TRUE(r->failed);
      EXPECT_TRUE(r->visitor.events_.empty());
      EXPECT_EQ(r->error.find("t:"), 0U) << r->error;
      continue;
    }
    ASSERT_FALSE(r->failed) << r->error;
    EXPECT_EQ(r->visitor.ending_, Ending::Truncated);
    std::size_t complete = 0;
    while (complete < all.size() && record_end(complete) <= cut) {
      ++complete;
    }
    ASSERT_EQ(r->visitor.events_.size(), complete);
    for (std::size_t i = 0; i < complete; ++i) {
      EXPECT_TRUE(r->visitor.events_[i].same_content(all[i]));
    }
    // One warning, at the cut record (or at the end of the input when the cut is between records).
    const std::uint64_t at = complete < all.size() ? all[complete].offset : marker;
    EXPECT_EQ(r->warnings.rfind("t:" + std::to_string(at) + ": warning: ", 0), 0U) << r->warnings;
    EXPECT_EQ(std::count(r->warnings.begin(), r->warnings.end(), '\n'), 1);
  }
}

TEST(MpatrolDamage, UnknownRecordByteIsAnErrorAfterTheRecordsBeforeIt) {
  const auto r = decode_bytes(read_file(fixture("mpatrol/edge/e08_unknown_record_byte.trace")));
  ASSERT_TRUE(r->failed);
  EXPECT_EQ(r->error_position, 293U);
  EXPECT_EQ(r->visitor.events_.size(), 26U);  // the I and H records
  EXPECT_FALSE(r->visitor.ending_);
  EXPECT_NE(r->error.find("unknown record type 0x5a 'Z'"), std::string::npos) << r->error;
}

TEST(MpatrolDamage, BadMagicAndBadEndMarker) {
  const auto magic = decode_bytes(read_file(fixture("mpatrol/edge/e03_bad_magic.trace")));
  ASSERT_TRUE(magic->failed);
  EXPECT_EQ(magic->error_position, 0U);
  EXPECT_FALSE(magic->visitor.header_);

  std::string bytes = read_file(fixture("mpatrol/basic/basic.trace"));
  bytes.back() = 'X';  // "MTRX" where the end marker belongs
  const auto marker = decode_bytes(bytes);
  ASSERT_TRUE(marker->failed);
  EXPECT_EQ(marker->error_position, 476U);
  EXPECT_EQ(marker->visitor.events_.size(), 37U);
}

TEST(MpatrolDamage, VersionTooNewIsAnErrorButAnyPatchOf15IsRead) {
  const auto too_new = decode_bytes(TraceWriter({.word_size = 8, .version = 10600}).bytes());
  ASSERT_TRUE(too_new->failed);
  EXPECT_EQ(too_new->error_position, 12U);
  EXPECT_NE(too_new->error.find("version 1.6.0 is too new"), std::string::npos);

  TraceWriter patch({.word_size = 4, .big_endian = true, .version = 10599});
  patch.end_marker();
  const auto ok = decode_bytes(patch.bytes());
  EXPECT_FALSE(ok->failed) << ok->error;
  EXPECT_EQ(ok->visitor.ending_, Ending::EndMarker);
}

TEST(MpatrolDamage, HeaderWithoutByteOrderMarkIsAnError) {
  std::string bytes = read_file(fixture("mpatrol/basic/basic.trace"));
  bytes[4] = 2;  // the byte-order word is not 1 in any reading
  const auto r = decode_bytes(bytes);
  ASSERT_TRUE(r->failed);
  EXPECT_EQ(r->error_position, 4U);
}

// 'A' index 1, address 2, size 3, thread 0, then `tail` (function field, file field, line).
std::string one_alloc(const std::string& tail) {
  TraceWriter writer({.word_size = 8, .version = 10501});
  return writer.bytes() + std::string("A\x01\x02\x03\x00", 5) + tail + "MTRC";
}

TEST(MpatrolDamage, NameSlotOutOfRangeIsAnError) {
  for (const char code : {'\x21', '\x80', '\xA1'}) {  // slot 33 ref, slot 0 def, slot 33 def
    const auto r = decode_bytes(
        one_alloc(std::string(1, code) + "f" + std::string(1, '\0') + std::string("\x00\x00", 2)));
    ASSERT_TRUE(r->failed);
    EXPECT_EQ(r->error_position, 25U);
    EXPECT_NE(r->error.find("function-name cache slot"), std::string::npos) << r->error;
  }
}

TEST(MpatrolDamage, UndefinedSlotReadsAsNoNameWithAWarning) {
  const auto r =
      decode_bytes(one_alloc(std::string("\x05\x81"
                                         "a.c\0\x07",
                                         7)));
  ASSERT_FALSE(r->failed) << r->error;
  ASSERT_EQ(r->visitor.events_.size(), 1U);
  EXPECT_EQ(r->visitor.events_[0].function, "");
  EXPECT_EQ(r->visitor.events_[0].file, "a.c");
  EXPECT_EQ(r->visitor.events_[0].line, 7U);
  EXPECT_EQ(r->warnings, "t:25: warning: reference to an undefined function-name slot; no name\n");
}

TEST(MpatrolDamage, OverlongNumbersAndNamesAreErrors) {
  const std::string eleven_bytes(10, '\xFF');
  const auto number = decode_bytes(one_alloc(std::string("\x00\x00", 2) + eleven_bytes + "\x01"));
  ASSERT_TRUE(number->failed);
  EXPECT_NE(number->error.find("LEB128"), std::string::npos) << number->error;

  std::string name = "\x81" + std::string(mpatrol::kMaxNameLength + 1, 'n');
  const auto overlong = decode_bytes(one_alloc(name + std::string("\0\0\0", 3)));
  ASSERT_TRUE(overlong->failed);
  EXPECT_EQ(overlong->error_position, 25U);

  name = "\x81" + std::string(mpatrol::kMaxNameLength, 'n');
  const auto longest = decode_bytes(one_alloc(name + std::string("\0\0\0", 3)));
  ASSERT_FALSE(longest->failed) << longest->error;
  EXPECT_EQ(longest->visitor.events_.at(0).function.size(), mpatrol::kMaxNameLength);
}

TEST(MpatrolDamage, DataAfterTheEndMarkerIsIgnoredWithAWarning) {
  const auto r =
      decode_bytes(read_file(fixture("mpatrol/basic/basic.trace")) + "garbage after the end");
  ASSERT_FALSE(r->failed) << r->error;
  EXPECT_EQ(r->visitor.events_.size(), 37U);
  EXPECT_EQ(r->visitor.ending_, Ending::EndMarker);
  EXPECT_EQ(r->warnings, "t:480: warning: data after the end marker is ignored\n");
}

TEST(MpatrolDamage, EndMarkerCutShortIsATruncation) {
  std::string bytes = read_file(fixture("mpatrol/basic/basic.trace"));
  bytes.resize(bytes.size() - 2);  // "MT"
  const auto r = decode_bytes(bytes);
  ASSERT_FALSE(r->failed) << r->error;
  EXPECT_EQ(r->visitor.events_.size(), 37U);
  EXPECT_EQ(r->visitor.ending_, Ending::Truncated);
  EXPECT_EQ(r->warnings.rfind("t:476: warning: the file ends inside the end marker", 0), 0U);
}

TEST(MpatrolDamage, NotAnMpatrolFileAtAll) {
  for (const std::string& bytes : {std::string(), std::string("MT"), std::string("hello world")}) {
    const auto r = decode_bytes(bytes);
    EXPECT_TRUE(r->failed) << bytes;
    EXPECT_EQ(r->error_position, 0U);
  }
}

}  // namespace
}  // namespace rtrace
