#include "formats/apitrace/call_set.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "formats/apitrace/call.h"
#include "io/standard_stream.h"

namespace rtrace::apitrace {
namespace {

// A call set file holds numbers, not data: anything this large is a mistake.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{16} << 20;

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}

// The kinds of call a word names, as apitrace's frequencies.
std::uint32_t kinds_named(std::string_view word) {
  if (word == "frame") {
    return kFlagEndFrame;
  }
  if (word == "draw" || word == "render") {
    return kFlagRender;
  }
  if (word == "fbo" || word == "rendertarget") {
    return kFlagEndFrame | kFlagSwapRenderTarget;
  }
  return 0;
}

// Reads one part of a set (no '@'): ranges separated by commas or blanks.
class RangeParser {
 public:
  explicit RangeParser(std::string_view text) : text_(text) {}

  // Calls `add` for every range; returns an error message ("" when all went well) and leaves
  // position() at the character it could not read.
  template <typename Add>
  std::string parse(Add add) {
    skip_blanks();
    while (!at_end()) {
      CallSet::Range range;
      if (std::string error = range_of(range); !error.empty()) {
        return error;
      }
      add(range);
      take(',');
    }
    return {};
  }

  std::size_t position() const { return at_; }

 private:
  std::string range_of(CallSet::Range& range) {
    if (is_lower(peek())) {
      return kinds(range.kinds);
    }
    if (!take('*')) {
      if (std::string error = number(range.first); !error.empty()) {
        return error;
      }
      range.last = range.first;
      if (take('-')) {
        range.last = CallSet::Range{}.last;
        if (is_digit(peek())) {
          number(range.last);
        }
      }
    }
    if (take('/')) {
      if (is_lower(peek())) {
        return kinds(range.kinds);
      }
      if (!is_digit(peek())) {
        return "a step or a kind of call expected " + where();
      }
      number(range.step);
      if (range.step == 0) {
        return "a step of 0";
      }
    }
    return {};
  }

  std::string number(std::uint64_t& value) {
    if (!is_digit(peek())) {
      return "a call number, '*' or a kind of call expected " + where();
    }
    value = 0;
    const std::size_t start = at_;
    while (is_digit(peek())) {
      const auto digit = static_cast<std::uint64_t>(peek() - '0');
      if (__builtin_mul_overflow(value, 10U, &value) ||
          __builtin_add_overflow(value, digit, &value)) {
        at_ = start;
        return "call number too large " + where();
      }
      ++at_;
    }
    skip_blanks();
    return {};
  }

  std::string kinds(std::uint32_t& kinds) {
    const std::size_t start = at_;
    while (is_lower(peek())) {
      ++at_;
    }
    const std::string_view word = text_.substr(start, at_ - start);
    kinds = kinds_named(word);
    if (kinds == 0) {
      at_ = start;
      return "'" + std::string(word) + "' is not a kind of call (frame, draw, render, fbo, " +
             "rendertarget)";
    }
    skip_blanks();
    return {};
  }

  bool take(char c) {
    if (peek() != c) {
      return false;
    }
    ++at_;
    skip_blanks();
    return true;
  }
  void skip_blanks() {
    while (is_blank(peek())) {
      ++at_;
    }
  }
  char peek() const { return at_end() ? '\0' : text_[at_]; }
  bool at_end() const { return at_ >= text_.size(); }
  std::string where() const { return at_end() ? "at the end" : "at '" + rest() + "'"; }
  std::string rest() const {
    std::string_view rest = text_.substr(at_);
    rest = rest.substr(0, std::min(rest.find('\n'), std::size_t{40}));
    return std::string(rest);
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace

void CallSet::merge(std::string_view text) {
  if (everything_) {
    everything_ = false;
    plain_.clear();
    special_.clear();
  }
  const std::string whole(text);
  // apitrace splits at commas first: a part that starts with '@' names a file.
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view part = text.substr(begin, comma - begin);
    if (part.starts_with('@')) {
      parse_file(std::string(part.substr(1)));
    } else {
      parse_ranges(part, whole);
    }
    begin = comma + 1;
  }
  // Keep the plain ranges disjoint and sorted.
  std::ranges::sort(plain_, {}, &Range::first);
  std::vector<Range> merged;
  for (const Range& range : plain_) {
    if (!merged.empty() &&
        (merged.back().last == Range{}.last || range.first <= merged.back().last + 1)) {
      merged.back().last = std::max(merged.back().last, range.last);
    } else {
      merged.push_back(range);
    }
  }
  plain_ = std::move(merged);
}

void CallSet::parse_ranges(std::string_view text, const std::string& whole) {
  RangeParser parser(text);
  const std::string error = parser.parse([this](const Range& range) { add(range); });
  if (!error.empty()) {
    throw std::invalid_argument("cannot read the call set '" + whole + "': " + error);
  }
}

void CallSet::parse_file_text(std::string_view text, const std::string& path) {
  RangeParser parser(text);
  const std::string error = parser.parse([this](const Range& range) { add(range); });
  if (!error.empty()) {
    // FILE:LINE, as for every text input.
    const auto end = text.begin() + static_cast<std::ptrdiff_t>(parser.position());
    const auto line = 1 + std::count(text.begin(), end, '\n');
    throw std::invalid_argument(path + ":" + std::to_string(line) +
                                ": cannot read the call set: " + error);
  }
}

void CallSet::parse_file(const std::string& path) {
  const auto fail = [&](const std::string& why) {
    return std::invalid_argument(path + ": cannot read the call set file (--calls=@" + path +
                                 "): " + why);
  };
  // "-" is standard input, as for every file a command reads.
  std::ifstream named;
  const bool standard_input = names_standard_stream(path);
  if (!standard_input) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      throw fail("it is a directory");
    }
    named.open(path, std::ios::binary);
    if (!named) {
      throw fail(std::strerror(errno));
    }
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error && size > kMaxFileBytes) {
      throw fail("larger than 16 MiB");
    }
  }
  std::istream& file = standard_input ? std::cin : named;
  std::string text;
  char buffer[65536];
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(file.gcount()));
    if (text.size() > kMaxFileBytes) {
      throw fail("larger than 16 MiB");
    }
  }
  if (file.bad()) {
    throw fail(std::strerror(errno));
  }
  parse_file_text(text, path);
}

void CallSet::add(const Range& range) {
  if (range.first > range.last) {
    return;  // empty, as in apitrace
  }
  if (range.step == 1 && range.kinds == kAnyCall) {
    plain_.push_back(range);
  } else {
    special_.push_back(range);
  }
}

bool CallSet::contains(std::uint64_t call_number, std::uint32_t flags) const {
  if (everything_) {
    return true;
  }
  // The last plain range that starts at or before the call.
  const auto after = std::ranges::upper_bound(plain_, call_number, {}, &Range::first);
  if (after != plain_.begin() && call_number <= std::prev(after)->last) {
    return true;
  }
  return std::ranges::any_of(special_, [&](const Range& r) {
    return call_number >= r.first && call_number <= r.last &&
           (call_number - r.first) % r.step == 0 && (r.kinds == kAnyCall || (flags & r.kinds) != 0);
  });
}

}  // namespace rtrace::apitrace
