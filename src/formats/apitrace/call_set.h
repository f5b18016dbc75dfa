// apitrace's call sets (`--calls=SET`), with apitrace's grammar and meaning:
//
//   SET    = PART (',' PART)*            PART = '@' FILE | RANGE ((',' | blanks) RANGE)*
//   RANGE  = '*' ['/' STEP | '/' KIND]   | N ['-' [M]] ['/' STEP | '/' KIND]   | KIND
//   KIND   = frame | draw | render | fbo | rendertarget
//
// `N-` runs to the last call; `/STEP` keeps every STEP-th call from N; a KIND keeps only the calls
// whose flags say they end a frame (frame), draw (draw, render) or end a frame or change the render
// target (fbo, rendertarget). The flags are not in the trace: apitrace gives them by function name
// (call_flags.h). A range whose end is before its start is empty. `@FILE` reads ranges from a file
// (separated by commas or any blanks, newlines included). Several sets merge into one.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace rtrace::apitrace {

class CallSet {
 public:
  // Every call.
  CallSet() = default;

  // Adds `text` to the set; the first merge replaces "every call" with what `text` holds.
  // Throws std::invalid_argument naming what it cannot read (a file's content as FILE:LINE:), and
  // std::runtime_error naming a file it cannot read.
  void merge(std::string_view text);
  static CallSet parse(std::string_view text) {
    CallSet set;
    set.merge(text);
    return set;
  }

  // `flags` are the call's CallFlag bits (call.h).
  bool contains(std::uint64_t call_number, std::uint32_t flags) const;

  struct Range {
    std::uint64_t first = 0;
    std::uint64_t last = std::numeric_limits<std::uint64_t>::max();  // inclusive
    std::uint64_t step = 1;
    std::uint32_t kinds = kAnyCall;  // CallFlag bits, one of which the call must have
  };
  static constexpr std::uint32_t kAnyCall = 0xffffffffU;

 private:
  void add(const Range& range);
  void parse_ranges(std::string_view text, const std::string& whole);
  void parse_file(const std::string& path);
  void parse_file_text(std::string_view text, const std::string& path);

  bool everything_ = true;
  // Plain ranges (every call from first to last) kept disjoint and sorted, for a binary search;
  // ranges with a step or a kind are few and searched in order.
  std::vector<Range> plain_;
  std::vector<Range> special_;
};

}  // namespace rtrace::apitrace
