#include "filters/expected_output.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "rtrace/version.h"

namespace rtrace::test {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    text += line + '\n';
  }
  return text;
}

std::uint64_t leading_number(std::string_view text) {
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

bool is_call_line(const std::string& line) {
  const std::size_t dot = line.find(". ");
  return dot != std::string::npos && dot > 0 &&
         std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(dot),
                     [](char c) { return c >= '0' && c <= '9'; });
}

std::size_t first_call_line(const std::vector<std::string>& lines) {
  const auto found = std::ranges::find_if(lines, is_call_line);
  if (found == lines.end()) {
    throw std::runtime_error("expected output has no call");
  }
  return static_cast<std::size_t>(found - lines.begin());
}

struct Block {
  std::vector<std::string> lines;
  std::uint64_t first_index = 0;
  std::uint64_t blocks = 0;
  std::uint64_t size = 0;
};

Block make_block(std::vector<std::string> lines) {
  Block block{.lines = std::move(lines)};
  block.first_index = leading_number(block.lines.front());
  constexpr std::string_view kSummary = "# allocation summary: ";
  for (const std::string& line : block.lines) {
    if (!line.starts_with(kSummary)) {
      continue;
    }
    const std::string_view rest = std::string_view(line).substr(kSummary.size());
    block.blocks = leading_number(rest);
    block.size = leading_number(rest.substr(rest.rfind(' ') + 1));
  }
  return block;
}

}  // namespace

std::string with_our_origin(std::string text) {
  const std::string theirs = "origin=sp-rtrace 1.8, ";
  const std::size_t at = text.find(theirs);
  if (at == std::string::npos) {
    throw std::runtime_error("no origin field");
  }
  return text.replace(at, theirs.size(), std::string("origin=") + kOrigin + ", ");
}

std::string with_ties_by_first_index(const std::string& text, TieOrder order) {
  const std::vector<std::string> lines = split_lines(text);
  if (std::ranges::none_of(lines, is_call_line)) {
    return text;  // nothing to order
  }
  const std::size_t body = first_call_line(lines);
  std::size_t tail = body;
  while (tail < lines.size() && !lines[tail].starts_with("# Resource - ")) {
    ++tail;
  }

  std::vector<Block> blocks;
  std::vector<std::string> current;
  for (std::size_t i = body; i < tail; ++i) {
    current.push_back(lines[i]);
    if (lines[i].empty()) {
      blocks.push_back(make_block(std::move(current)));
      current.clear();
    }
  }
  if (!current.empty()) {
    throw std::runtime_error("compressed output ends inside a group");
  }

  auto key = [order](const Block& b) {
    switch (order) {
      case TieOrder::SizeAscending:
        return std::tuple(b.size, b.first_index);
      case TieOrder::SizeDescending:
        return std::tuple(~b.size, b.first_index);
      case TieOrder::CountAscending:
        return std::tuple(b.blocks, b.first_index);
      case TieOrder::CountDescending:
        return std::tuple(~b.blocks, b.first_index);
    }
    return std::tuple(b.size, b.first_index);
  };
  std::ranges::stable_sort(blocks, {}, key);

  std::vector<std::string> result(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(body));
  for (const Block& block : blocks) {
    result.insert(result.end(), block.lines.begin(), block.lines.end());
  }
  result.insert(result.end(), lines.begin() + static_cast<std::ptrdiff_t>(tail), lines.end());
  return join_lines(result);
}

std::string with_leak_summary(std::string text, std::string_view resource,
                              std::string_view numbers) {
  const std::string heading = "# Resource - " + std::string(resource) + ":\n";
  const std::size_t at = text.find(heading);
  if (at == std::string::npos) {
    throw std::runtime_error("no leak summary for " + heading);
  }
  const std::size_t line = at + heading.size();
  const std::size_t end = text.find('\n', line);
  return text.replace(line, end - line, numbers);
}

std::string with_context_registry(const std::string& text, std::string_view registry) {
  std::vector<std::string> lines = split_lines(text);
  std::erase_if(lines, [](const std::string& line) { return line.starts_with("@ "); });
  std::string result = join_lines(lines);
  const std::size_t after_header = result.find('\n') + 1;
  return result.insert(after_header, registry);
}

std::string with_body_of(const std::string& environment_from, const std::string& body_from) {
  const std::vector<std::string> environment = split_lines(environment_from);
  const std::vector<std::string> body = split_lines(body_from);
  std::vector<std::string> result(
      environment.begin(),
      environment.begin() + static_cast<std::ptrdiff_t>(first_call_line(environment)));
  result.insert(result.end(), body.begin() + static_cast<std::ptrdiff_t>(first_call_line(body)),
                body.end());
  return join_lines(result);
}

}  // namespace rtrace::test
