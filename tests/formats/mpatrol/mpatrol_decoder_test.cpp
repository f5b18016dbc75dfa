// The mpatrol decoder on real traces and on files written by our writer: header words of either
// byte order and size, the 1.4.4 and 1.5.1 record layouts, name-cache eviction, values of 2^31
// and more, and input handed over in small pieces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/mpatrol/mpatrol_test_support.h"
#include "formats/mpatrol/mpatrol_writer.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using mpatrol::Header;
using mpatrol::RecordType;
using mpatrol::SourceInfo;
using mpatrol::TraceWriter;
using test::decode_bytes;
using test::fixture;
using test::OwnedEvent;
using test::read_file;

// Writes `events` as mpatrol would, with `header`.
std::string write_events(const Header& header, const std::vector<OwnedEvent>& events,
                         bool end_marker = true) {
  TraceWriter writer(header);
  for (const OwnedEvent& e : events) {
    const SourceInfo source{e.thread, e.function, e.file, e.line};
    switch (e.type) {
      case RecordType::Alloc:
        writer.alloc(e.index, e.address, e.size, source);
        break;
      case RecordType::Realloc:
        writer.realloc(e.index, e.address, e.size, source);
        break;
      case RecordType::Free:
        writer.free(e.index, source);
        break;
      case RecordType::Reserve:
        writer.reserve(e.address, e.size);
        break;
      case RecordType::Internal:
        writer.internal(e.address, e.size);
        break;
    }
  }
  if (end_marker) {
    writer.end_marker();
  }
  return writer.bytes();
}

void expect_same_events(const std::vector<OwnedEvent>& actual,
                        const std::vector<OwnedEvent>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(actual[i].same_content(expected[i]))
        << "event " << i << ": " << actual[i].function << " / " << expected[i].function;
  }
}

TEST(MpatrolDecoder, DecodesBasicAsTheManifestDescribesIt) {
  const auto r = decode_bytes(read_file(fixture("mpatrol/basic/basic.trace")));
  ASSERT_FALSE(r->failed) << r->error;
  EXPECT_EQ(r->warnings, "");
  ASSERT_TRUE(r->visitor.header_);
  EXPECT_EQ(r->visitor.header_->word_size, 8);
  EXPECT_FALSE(r->visitor.header_->big_endian);
  EXPECT_EQ(r->visitor.header_->version, 10501U);
  EXPECT_EQ(r->visitor.ending_, mpatrol::Ending::EndMarker);
  const auto& events = r->visitor.events_;
  ASSERT_EQ(events.size(), 37U);  // 10 I + 16 H + 11 events
  // offset 20: I 0x7ffff7b77000 16384 (the stock mptrace prints 0xFFFFFFFFF7B77FF8)
  EXPECT_EQ(events[0].type, RecordType::Internal);
  EXPECT_EQ(events[0].offset, 20U);
  EXPECT_EQ(events[0].address, 0x7ffff7b77000U);
  EXPECT_EQ(events[0].size, 16384U);
  // offset 293: A 45 0x55555558a250 100, make_buffer at basic.c:18 (both names defined here)
  const OwnedEvent& first = events[26];
  EXPECT_EQ(first.offset, 293U);
  EXPECT_TRUE(first.same_content(
      {RecordType::Alloc, 0, 45, 0x55555558a250, 100, 0, "make_buffer", "basic.c", 18}));
  // offset 327: the same names through cache references
  EXPECT_TRUE(events[27].same_content(
      {RecordType::Alloc, 0, 48, 0x55555558a4a0, 16, 0, "make_buffer", "basic.c", 18}));
  // offset 394: R keeps the original index
  EXPECT_TRUE(events[31].same_content(
      {RecordType::Realloc, 0, 49, 0x55555558a510, 200, 0, "grow_buffer", "basic.c", 31}));
  // offset 435: F carries only the index
  EXPECT_TRUE(
      events[33].same_content({RecordType::Free, 0, 48, 0, 0, 0, "release", "basic.c", 36}));
  // offset 461: libc's stdout buffer, no source
  EXPECT_TRUE(
      events[36].same_content({RecordType::Alloc, 0, 52, 0x55555558c470, 4096, 0, "", "", 0}));
  EXPECT_EQ(events[36].offset, 461U);
}

TEST(MpatrolDecoder, ThreadIdsAbove2To31DecodeRight) {
  const auto r = decode_bytes(read_file(fixture("mpatrol/threads/threads.trace")));
  ASSERT_FALSE(r->failed) << r->error;
  bool main_thread = false;
  for (const OwnedEvent& e : r->visitor.events_) {
    main_thread =
        main_thread || e.thread == 140737349403456U;  // the stock tool: 18446744073570615288
  }
  EXPECT_TRUE(main_thread);
}

// Our writer, fed with what the decoder read, writes the fixtures' bytes again: same LEB128
// encoding, same name-cache decisions, same header layouts (e05, e06 and e11 are basic with
// another header or layout).
TEST(MpatrolDecoder, WriterReproducesEveryValidFixtureByteForByte) {
  for (const char* name :
       {"basic/basic.trace", "cxx/cxx.trace", "threads/threads.trace",
        "edge/e05_version_1_4_4_format.trace", "edge/e06_big_endian_header.trace",
        "edge/e11_32bit_word_header.trace", "edge/e09_empty_no_events.trace"}) {
    SCOPED_TRACE(name);
    const std::string bytes = read_file(fixture(std::string("mpatrol/") + name));
    const auto r = decode_bytes(bytes);
    ASSERT_FALSE(r->failed) << r->error;
    ASSERT_TRUE(r->visitor.header_);
    EXPECT_EQ(write_events(*r->visitor.header_, r->visitor.events_), bytes);
  }
}

std::vector<OwnedEvent> sample_events() {
  return {
      {RecordType::Internal, 0, 0, 0x7ffff7b77000, 16384, 0, "", "", 0},
      {RecordType::Reserve, 0, 0, 0x555555589000, 4096, 0, "", "", 0},
      {RecordType::Alloc, 0, 45, 0x55555558a250, 100, 7, "make_buffer", "basic.c", 18},
      {RecordType::Alloc, 0, 46, 0x55555558a300, 0, 7, "make_buffer", "", 0},
      {RecordType::Realloc, 0, 45, 0x55555558a400, 300, 8, "", "other.c", 5},
      {RecordType::Free, 0, 46, 0, 0, 8, "release", "basic.c", 36},
      {RecordType::Free, 0, 45, 0, 0, 0, "", "", 0},
  };
}

TEST(MpatrolDecoder, EitherByteOrderAndWordSizeReadTheSame) {
  for (const std::uint8_t word : {4, 8}) {
    for (const bool big : {false, true}) {
      SCOPED_TRACE(testing::Message() << int{word} << "-byte words, big endian " << big);
      const Header header{.word_size = word, .big_endian = big, .version = 10501};
      const auto r = decode_bytes(write_events(header, sample_events()));
      ASSERT_FALSE(r->failed) << r->error;
      EXPECT_EQ(r->warnings, "");
      ASSERT_TRUE(r->visitor.header_);
      EXPECT_EQ(r->visitor.header_->word_size, word);
      EXPECT_EQ(r->visitor.header_->big_endian, big);
      EXPECT_EQ(r->visitor.events_.front().offset, 4U + 2U * word);
      expect_same_events(r->visitor.events_, sample_events());
    }
  }
}

TEST(MpatrolDecoder, SourceFieldsExactlyFromVersion145) {
  std::vector<OwnedEvent> without_source = sample_events();
  for (OwnedEvent& e : without_source) {
    e.thread = 0;
    e.function.clear();
    e.file.clear();
    e.line = 0;
  }
  for (const std::uint64_t version : {10000U, 10404U, 10405U, 10501U, 10599U}) {
    SCOPED_TRACE(version);
    const std::string bytes = write_events({.word_size = 8, .version = version}, sample_events());
    const auto r = decode_bytes(bytes);
    ASSERT_FALSE(r->failed) << r->error;
    EXPECT_EQ(r->visitor.header_->version, version);
    expect_same_events(r->visitor.events_, version >= 10405 ? sample_events() : without_source);
  }
  // 1.4.4: A is tag + three numbers; 1.4.5: + thread, two name bytes, line.
  TraceWriter old_layout({.word_size = 8, .version = 10404});
  old_layout.alloc(1, 2, 3);
  EXPECT_EQ(old_layout.bytes().substr(20), std::string("A\x01\x02\x03", 4));
  TraceWriter new_layout({.word_size = 8, .version = 10405});
  new_layout.alloc(1, 2, 3);
  EXPECT_EQ(new_layout.bytes().substr(20), std::string("A\x01\x02\x03\x00\x00\x00\x00", 8));
}

TEST(MpatrolDecoder, ValuesOf2To31AndMoreUpTo64Bits) {
  const std::vector<OwnedEvent> events = {
      {RecordType::Alloc, 0, (1ULL << 32) + 5, 0xFFFFFFFFFFFFFFFFULL, 1ULL << 31, 1ULL << 63, "f",
       "g", 1ULL << 31},
      {RecordType::Reserve, 0, 0, 0x80000000ULL, 0xFFFFFFFFULL, 0, "", "", 0},
      {RecordType::Free, 0, (1ULL << 32) + 5, 0, 0, 0xFFFFFFFFFFFFFFFFULL, "", "", 0},
  };
  const auto r = decode_bytes(write_events({.word_size = 8, .version = 10501}, events));
  ASSERT_FALSE(r->failed) << r->error;
  expect_same_events(r->visitor.events_, events);
}

// mpatrol's caches hold 32 names each; the 33rd distinct name redefines the least recently used
// slot, and later references to that slot mean the new name.
TEST(MpatrolDecoder, NameCacheEvictionPast32Names) {
  std::vector<OwnedEvent> events;
  std::uint64_t index = 1;
  const auto add = [&](int function, int file) {
    events.push_back({RecordType::Alloc, 0, index, 0x1000 * index, 16, 0,
                      "function_" + std::to_string(function), "file_" + std::to_string(file) + ".c",
                      index});
    ++index;
  };
  for (int i = 1; i <= 32; ++i) {
    add(i, i % 3);
  }
  add(1, 0);   // refresh slot 1: now slot 2 is the least recently used
  add(33, 0);  // evicts function_2 (slot 2)
  add(2, 1);   // function_2 again: redefined, evicting function_3 (slot 3)
  for (int i = 34; i <= 80; ++i) {
    add(i, i);  // churns both caches
  }
  add(1, 1);
  const std::string bytes = write_events({.word_size = 8, .version = 10501}, events);
  const auto r = decode_bytes(bytes);
  ASSERT_FALSE(r->failed) << r->error;
  EXPECT_EQ(r->warnings, "");
  expect_same_events(r->visitor.events_, events);
  // The bytes show the eviction: function_33 defines slot 2 (0x82), function_2 then slot 3.
  EXPECT_NE(bytes.find(std::string("\x82") + "function_33" + std::string(1, '\0')),
            std::string::npos);
  EXPECT_NE(bytes.find(std::string("\x83") + "function_2" + std::string(1, '\0')),
            std::string::npos);
}

TEST(MpatrolDecoder, InputInOneByteOrOddPiecesReadsTheSame) {
  const std::string bytes = read_file(fixture("mpatrol/threads/threads.trace"));
  const auto whole = decode_bytes(bytes);
  for (const std::size_t piece : {1U, 3U, 7U, 64U}) {
    const auto r = decode_bytes(bytes, piece);
    ASSERT_FALSE(r->failed) << r->error;
    expect_same_events(r->visitor.events_, whole->visitor.events_);
  }
}

// Larger than the decoder's read-ahead window, with long names, so records straddle windows.
TEST(MpatrolDecoder, LargeFileWithLongNamesAcrossReadWindows) {
  std::vector<OwnedEvent> events;
  for (std::uint64_t i = 1; i <= 6000; ++i) {
    events.push_back({RecordType::Alloc, 0, i, 0x555555550000 + i * 64, i % 500, i,
                      std::string(100 + i % 900, static_cast<char>('a' + i % 26)),
                      "file" + std::to_string(i % 40) + ".c", i});
    if (i % 3 == 0) {
      events.push_back({RecordType::Free, 0, i - 1, 0, 0, i, "", "", 0});
    }
  }
  const std::string bytes = write_events({.word_size = 8, .version = 10501}, events);
  ASSERT_GT(bytes.size(), std::size_t{1} << 20);
  const auto r = decode_bytes(bytes, 4093);
  ASSERT_FALSE(r->failed) << r->error;
  EXPECT_EQ(r->warnings, "");
  expect_same_events(r->visitor.events_, events);
}

}  // namespace
}  // namespace rtrace
