// Damaged and hostile input: every complete entry before the damage is kept, the damage is named
// with its byte offset, nothing crashes, and memory stays bounded.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "stacktrack_test_support.h"
#include "support/sweep.h"

namespace rtrace::stacktrack::test {
namespace {

constexpr std::uint64_t kPid = 0x0042;

std::string small_file() {
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(kPid, 1000, 0);
  e.entry("FLOC", kPid, 1, {{"filenum", 1}}, true).info(kPid, 1, "a_file_name_longer_than_16.cpp");
  e.entry("SLOC", kPid, 2, {{"scopeIndex", 1}, {"filenum", 1}}, true);
  e.entry("HIT", kPid, 3, {{"when", 5}, {"scopeIndex", 1}, {"tid", 1}});
  e.info(kPid, 2, "f");
  e.entry("HIT", kPid, 2, {{"when", 7}, {"scopeIndex", 1}, {"tid", 1}});
  return e.bytes();
}

std::string first_lines(const std::string& text, std::size_t n) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < n; ++i) {
    end = text.find('\n', end) + 1;
  }
  return text.substr(0, end);
}

// Cut after every byte: exactly the complete entries are printed; a partial entry is reported
// where it starts; nothing before the first entry is a StackTrack file.
TEST(StackTrackDamage, TruncationAtEveryOffset) {
  const std::string bytes = small_file();
  const Expanded whole = expand_bytes(bytes);
  ASSERT_FALSE(whole.failed) << whole.error;
  ASSERT_EQ(whole.warnings, "");
  for (const std::size_t length : rtrace::test::sweep(0, bytes.size())) {
    for (const std::size_t piece : {std::size_t{1} << 20, std::size_t{7}}) {
      const Expanded r = expand_bytes(bytes.substr(0, length), default_layout(), {}, {}, piece);
      if (length < 24) {
        ASSERT_TRUE(r.failed) << length;
        EXPECT_EQ(r.error_position, 0U);
        EXPECT_EQ(r.text, "");
        continue;
      }
      ASSERT_FALSE(r.failed) << length << ": " << r.error;
      EXPECT_EQ(r.text, first_lines(whole.text, length / 24)) << length;
      const std::string cut = fmt::format(
          "trace:{}: warning: truncated entry ({} of 24 bytes); "
          "ignored\n",
          length / 24 * 24, length % 24);
      EXPECT_EQ(r.warnings.find(cut) != std::string::npos, length % 24 != 0)
          << length << ": " << r.warnings;
    }
  }
}

TEST(StackTrackDamage, EmptyAndShortInput) {
  EXPECT_EQ(expand_bytes("").error, "trace:0: empty input");
  EXPECT_EQ(expand_bytes("abc").error, "trace:0: 3 bytes: shorter than one entry (24 bytes)");
}

TEST(StackTrackDamage, AFileThatDoesNotStartWithAPrologue) {
  RawEncoder e(default_layout(), Order::Little);
  e.entry("HIT", kPid, 1, {{"when", 1}});
  e.process_start(kPid, 1000, 0);
  const Expanded r = expand_bytes(e.bytes());
  EXPECT_TRUE(r.failed);
  EXPECT_EQ(r.error,
            "trace:0: not a StackTrack raw event file in this layout (no PROLOGUE with magic "
            "0x12345678 first; another platform's layout is read with --format)");
  // A PROLOGUE with another magic is no StackTrack file either.
  RawEncoder other(default_layout(), Order::Little);
  other.entry("PROLOGUE", kPid, 0, {{"_12345678", 0x12345679}});
  EXPECT_TRUE(expand_bytes(other.bytes()).failed);
}

// An entry whose flags select no type ends the input there; what came before is kept.
TEST(StackTrackDamage, UnknownTypeStopsWithItsOffset) {
  const std::string bytes = small_file();
  const std::string whole = expand_bytes(bytes).text;
  RawEncoder bad(default_layout(), Order::Little);
  bad.raw_flags(kPid, 9, 0x00a0);
  std::string damaged = bytes;
  damaged.insert(std::size_t{24} * 6, bad.bytes());
  const Expanded r = expand_bytes(damaged);
  ASSERT_TRUE(r.failed);
  EXPECT_EQ(r.error, "trace:144: unknown entry type (flags 0x00a0)");
  EXPECT_EQ(r.text, first_lines(whole, 6));
}

TEST(StackTrackDamage, PrologueOfAnotherLayoutIsRefused) {
  RawEncoder e(default_layout(), Order::Little);
  e.entry("PROLOGUE", kPid, 0,
          {{"_12345678", 0x12345678}, {"info_len", 16}, {"entry_size", 32}, {"payload_offset", 8}});
  const Expanded r = expand_bytes(e.bytes());
  EXPECT_EQ(r.error,
            "trace:0: PROLOGUE says entries of 32 bytes with the payload at 8, the layout "
            "in use has 24 and 8 (give the writer's RAW_FORMAT with --format)");
  EXPECT_EQ(r.text, "");
}

TEST(StackTrackDamage, InfoProblemsAreWarnings) {
  RawEncoder e(default_layout(), Order::Little);
  e.process_start(kPid, 1000, 0);
  e.info(kPid, 5, "orphan");
  e.info(kPid, 6, "orphan too");
  e.entry("SLOC", kPid, 7, {{"scopeIndex", 1}}, true).info_part(kPid, 7, "never", false);
  e.entry("SLOC", kPid, 7, {{"scopeIndex", 2}}, true).info(kPid, 7, "two");
  e.entry("FLOC", kPid, 8, {{"filenum", 1}}, true);
  const Expanded r = expand_bytes(e.bytes());
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_EQ(r.warnings,
            "trace:96: warning: INFO entry (pid 0x0042, seq 5) that no entry announced (further "
            "ones are not reported)\n"
            "trace:192: warning: the INFO series of the SLOC at offset 144 never ended; its text "
            "is dropped\n"
            "trace:264: warning: 1 INFO series never ended (the first announced by the FLOC at "
            "offset 240)\n");
  EXPECT_EQ(std::count(r.text.begin(), r.text.end(), '\n'), 11);
}

// Random byte changes, with a fixed seed: no crash or hang; the entries printed before an error
// are those of the intact file up to the damaged entry, and an error names an entry's offset.
TEST(StackTrackDamage, RandomMutationsNeverCrash) {
  const std::string bytes = small_file();
  std::mt19937 rng(1234);
  std::uniform_int_distribution<std::size_t> where(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = bytes;
    for (int i = 0; i < 1 + round % 4; ++i) {
      damaged[where(rng)] = static_cast<char>(value(rng));
    }
    const Expanded r = expand_bytes(damaged);
    if (r.failed) {
      EXPECT_EQ(r.error_position % 24, 0U) << r.error;
      EXPECT_LE(r.error_position, bytes.size());
      EXPECT_EQ(static_cast<std::uint64_t>(std::count(r.text.begin(), r.text.end(), '\n')),
                r.error_position / 24)
          << r.error;
    } else {
      EXPECT_EQ(std::count(r.text.begin(), r.text.end(), '\n'),
                static_cast<std::ptrdiff_t>(bytes.size() / 24));
    }
  }
}

TEST(StackTrackDamage, HostileInputIsRefusedWithinItsLimits) {
  const DecoderLimits limits{
      .processes = 8, .pending_series = 8, .series_text = 64, .context_bytes = 4096};
  {  // too many processes
    RawEncoder e(default_layout(), Order::Little);
    e.process_start(kPid, 1000, 0);
    for (std::uint64_t pid = 1; pid <= 8; ++pid) {
      e.entry("PROCINFO", pid, 0, {{"pid", pid}});
    }
    const Expanded r = expand_bytes(e.bytes(), default_layout(), {}, limits);
    EXPECT_EQ(r.error, "trace:264: more than 8 processes; refused");
    EXPECT_EQ(std::count(r.text.begin(), r.text.end(), '\n'), 11);
  }
  {  // too many series open
    RawEncoder e(default_layout(), Order::Little);
    e.process_start(kPid, 1000, 0);
    for (std::uint64_t seq = 1; seq <= 9; ++seq) {
      e.entry("SLOC", kPid, seq, {{"scopeIndex", seq}}, true);
    }
    const Expanded r = expand_bytes(e.bytes(), default_layout(), {}, limits);
    EXPECT_EQ(r.error, "trace:288: more than 8 INFO series open at once; refused");
  }
  {  // a series that never ends
    RawEncoder e(default_layout(), Order::Little);
    e.process_start(kPid, 1000, 0);
    e.entry("SLOC", kPid, 1, {{"scopeIndex", 1}}, true);
    for (int i = 0; i < 5; ++i) {
      e.info_part(kPid, 1, "0123456789abcdef", false);
    }
    const Expanded r = expand_bytes(e.bytes(), default_layout(), {}, limits);
    EXPECT_EQ(r.error, "trace:216: INFO series of the SLOC at offset 96 longer than 64 bytes");
  }
  {  // ever more scopes
    RawEncoder e(default_layout(), Order::Little);
    e.process_start(kPid, 1000, 0);
    for (std::uint64_t scope = 0; scope < 100; ++scope) {
      e.entry("SLOC", kPid, scope, {{"scopeIndex", scope}}, true).info(kPid, scope, "a scope");
    }
    const Expanded r = expand_bytes(e.bytes(), default_layout(), {}, limits);
    EXPECT_TRUE(r.failed);
    EXPECT_NE(r.error.find("more than 4096 bytes of names and INFO text kept; refused"),
              std::string::npos)
        << r.error;
  }
}

}  // namespace
}  // namespace rtrace::stacktrack::test
