#include "cli/resolve_text_filter.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>

#include "formats/sprtrace_text/resolved_frame.h"
#include "symbols/address_resolver.h"

namespace rtrace::cli {
namespace {

std::optional<Address> parse_hex(std::string_view text) {
  if (!text.starts_with("0x")) {
    return std::nullopt;
  }
  text.remove_prefix(2);
  Address value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// `: /path => 0x<from>-0x<to>`; the path may hold spaces, so the arrow is searched from the right.
std::optional<Mapping> parse_mapping(std::string_view line) {
  if (!line.starts_with(": ")) {
    return std::nullopt;
  }
  const std::size_t arrow = line.rfind(" => ");
  if (arrow == std::string_view::npos || arrow < 2) {
    return std::nullopt;
  }
  const std::string_view range = line.substr(arrow + 4);
  const std::size_t dash = range.find('-');
  if (dash == std::string_view::npos) {
    return std::nullopt;
  }
  const std::optional<Address> from = parse_hex(range.substr(0, dash));
  const std::optional<Address> to = parse_hex(range.substr(dash + 1));
  if (!from || !to) {
    return std::nullopt;
  }
  return Mapping{*from, *to, std::string(line.substr(2, arrow - 2))};
}

// The header with `resolve` added to its filters (`filter=` sits after `pid=` when present).
std::string resolved_header(std::string_view header) {
  std::string text(header);
  const std::size_t filter = text.find(", filter=");
  if (filter != std::string::npos) {
    const std::size_t end = text.find(", ", filter + 2);
    const std::string_view flags = std::string_view(text).substr(
        filter + 9, end == std::string::npos ? text.npos : end - filter - 9);
    if (flags.find("resolve") == std::string_view::npos) {
      text.insert(end == std::string::npos ? text.size() : end,
                  flags.empty() ? "resolve" : "|resolve");
    }
    return text;
  }
  const std::size_t pid = text.find(", pid=");
  const std::size_t after_pid = pid == std::string::npos ? pid : text.find(", ", pid + 2);
  if (after_pid != std::string::npos) {
    text.insert(after_pid + 2, "filter=resolve, ");
  }
  return text;
}

class LineResolver {
 public:
  LineResolver(OutputStream& out, const symbols::ResolveOptions& options)
      : out_(out), keep_resolved_(options.keep_resolved), resolver_(options) {}

  void line(std::string_view text, bool first) {
    if (first && text.starts_with("version=")) {
      emit(resolved_header(text));
    } else if (text.starts_with("\t0x")) {
      backtrace_line(text);
    } else {
      if (const std::optional<Mapping> mapping = parse_mapping(text)) {
        resolver_.add_mapping(*mapping);
      }
      emit(text);
    }
  }

 private:
  void backtrace_line(std::string_view text) {
    const std::size_t space = text.find(' ');
    const std::string_view address_text =
        text.substr(1, space == text.npos ? text.npos : space - 1);
    const std::optional<Address> address = parse_hex(address_text);
    const bool resolved = space != std::string_view::npos && space + 1 < text.size();
    if (!address || (resolved && keep_resolved_)) {
      emit(text);
      return;
    }
    std::string& buffer = out_.buffer();
    buffer += '\t';
    buffer += address_text;
    const std::string name = sprtrace_text::format_resolved_frame(resolver_.resolve(*address));
    if (!name.empty()) {
      buffer += ' ';
      buffer += name;
    }
    buffer += '\n';
    out_.maybe_flush();
  }

  void emit(std::string_view text) {
    out_.buffer().append(text);
    out_.buffer() += '\n';
    out_.maybe_flush();
  }

  OutputStream& out_;
  bool keep_resolved_;
  symbols::AddressResolver resolver_;
};

}  // namespace

void resolve_text_lines(InputStream& input, OutputStream& out,
                        const symbols::ResolveOptions& options) {
  LineResolver resolver(out, options);
  bool first = true;
  while (const std::optional<std::string_view> line = input.read_line()) {
    resolver.line(*line, first);
    first = false;
  }
}

}  // namespace rtrace::cli
