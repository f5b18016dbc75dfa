#include "formats/sprtrace_text/record_lines.h"

#include <algorithm>
#include <bit>
#include <iterator>

#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace::sprtrace_text {
namespace {

constexpr std::uint64_t kMillisecondsPerSecond = 1000;

// Reads `[H:M:S.f]` (the post-processor prints milliseconds, the protocol document
// microseconds: any number of fraction digits is read as a fraction of a second).
std::string_view parse_timestamp(std::string_view text, std::uint32_t& ms) {
  std::uint64_t fields[3] = {};
  for (std::uint64_t& field : fields) {
    const std::size_t n = decimal_digit_run(text);
    if (n == 0 || n >= text.size() || !parse_decimal(text.substr(0, n), field)) {
      return "bad timestamp in a call record";
    }
    const char expected = &field == &fields[2] ? '.' : ':';
    if (text[n] != expected) {
      return "bad timestamp in a call record";
    }
    text.remove_prefix(n + 1);
  }
  const std::size_t digits = decimal_digit_run(text);
  if (digits == 0 || digits != text.size()) {
    return "bad timestamp in a call record";
  }
  std::uint64_t fraction = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    fraction = fraction * 10 + (i < digits ? static_cast<std::uint64_t>(text[i] - '0') : 0);
  }
  const auto [hours, minutes, seconds] = fields;
  if (hours > 0xffffffff || minutes > 59 || seconds > 59) {
    return "bad timestamp in a call record";
  }
  const std::uint64_t total =
      ((hours * 60 + minutes) * 60 + seconds) * kMillisecondsPerSecond + fraction;
  if (total > 0xffffffff) {
    return "timestamp too large in a call record";
  }
  ms = static_cast<std::uint32_t>(total);
  return {};
}

// `0x<hex>` as the whole of `text`.
template <typename T>
bool parse_prefixed_hex(std::string_view text, T& value) {
  return text.starts_with("0x") && parse_hex(text.substr(2), value);
}

constexpr CallKind kNeutralKinds[] = {CallKind::Other, CallKind::Enter, CallKind::Exit};

// `{<kind>}[ <size>]`, the operand of a call that neither allocates nor releases.
std::string_view parse_neutral_operand(std::string_view inside, Call& call) {
  constexpr std::string_view kBad =
      "bad call kind in a call record (expected {call}, {enter} or {exit})";
  const std::size_t close = inside.find('}');
  if (!inside.starts_with('{') || close == std::string_view::npos) {
    return kBad;
  }
  const std::string_view keyword = inside.substr(1, close - 1);
  const auto* kind = std::ranges::find_if(
      kNeutralKinds, [&](CallKind k) { return neutral_call_keyword(k) == keyword; });
  if (kind == std::end(kNeutralKinds)) {
    return kBad;
  }
  call.kind = *kind;
  const std::string_view size = inside.substr(close + 1);
  if (!size.empty() && (!size.starts_with(' ') || !parse_decimal(size.substr(1), call.size))) {
    return "bad size in a call record";
  }
  return {};
}

// Splits `<name>(<inside>)<tail>` where `<inside>` starts at the last '(' before `close`.
std::string_view parse_operands(std::string_view text, CallLine& parsed, std::size_t& open) {
  Call& call = parsed.call;
  if (text.ends_with(')')) {
    open = text.rfind('(');
    if (open == std::string_view::npos) {
      return "bad resource id in a call record";
    }
    const std::string_view inside = text.substr(open + 1, text.size() - open - 2);
    if (inside.starts_with('{')) {
      return parse_neutral_operand(inside, call);
    }
    if (!parse_prefixed_hex(inside, call.resource_id)) {
      return "bad resource id in a call record";
    }
    call.kind = CallKind::Free;
    return {};
  }
  constexpr std::string_view kReturns = ") = 0x";
  const std::size_t close = text.rfind(kReturns);
  if (close == std::string_view::npos) {
    return "malformed call record (expected '(size) = 0x<id>' or '(0x<id>)')";
  }
  open = text.rfind('(', close);
  if (open == std::string_view::npos) {
    return "bad size in a call record";
  }
  const std::string_view inside = text.substr(open + 1, close - open - 1);
  if (inside.starts_with('{')) {
    if (const std::string_view error = parse_neutral_operand(inside, call); !error.empty()) {
      return error;
    }
  } else if (parse_decimal(inside, call.size)) {
    call.kind = CallKind::Alloc;
  } else {
    return "bad size in a call record";
  }
  if (!parse_hex(text.substr(close + kReturns.size()), call.resource_id)) {
    return "bad resource id in a call record";
  }
  return {};
}

}  // namespace

std::string_view neutral_call_keyword(CallKind kind) {
  switch (kind) {
    case CallKind::Enter:
      return "enter";
    case CallKind::Exit:
      return "exit";
    case CallKind::Other:
    case CallKind::Free:
    case CallKind::Alloc:
      break;
  }
  return "call";
}

bool classify_call_line(std::string_view line) {
  const std::size_t n = decimal_digit_run(line);
  return n > 0 && n < line.size() && line[n] == '.';
}

std::string_view parse_call_line(std::string_view line, CallLine& parsed) {
  parsed = CallLine{};
  Call& call = parsed.call;
  const std::size_t digits = decimal_digit_run(line);
  if (!parse_decimal(line.substr(0, digits), call.index)) {
    return "bad index in a call record";
  }
  if (line.substr(digits, 2) != ". ") {
    return "malformed call record (expected '<index>. ')";
  }
  std::string_view rest = line.substr(digits + 2);
  if (rest.starts_with('@')) {
    const std::size_t n = hex_digit_run(rest.substr(1));
    if (n + 1 >= rest.size() || rest[n + 1] != ' ' || !parse_hex(rest.substr(1, n), call.context)) {
      return "bad context mask in a call record";
    }
    rest.remove_prefix(n + 2);
  }
  if (rest.starts_with('[')) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ' ') {
      return "bad timestamp in a call record";
    }
    std::uint32_t ms = 0;
    if (const std::string_view error = parse_timestamp(rest.substr(1, close - 1), ms);
        !error.empty()) {
      return error;
    }
    call.timestamp_ns = std::uint64_t{ms} * 1'000'000;
    rest.remove_prefix(close + 2);
  }
  std::size_t open = 0;
  if (const std::string_view error = parse_operands(rest, parsed, open); !error.empty()) {
    return error;
  }
  std::string_view name = rest.substr(0, open);
  if (name.ends_with('>')) {
    const std::size_t lt = name.rfind('<');
    if (lt == std::string_view::npos || lt + 2 >= name.size()) {
      return "bad resource type tag in a call record";
    }
    parsed.type_tag = name.substr(lt + 1, name.size() - lt - 2);
    name = name.substr(0, lt);
  }
  // An empty name reads as one: the other formats hold it (a hostile apitrace signature, say),
  // and what rtrace writes it must read.
  parsed.function = name;
  return {};
}

bool parse_argument_line(std::string_view line, std::string_view& name, std::string_view& value) {
  constexpr std::string_view kPrefix = "\t$";
  constexpr std::string_view kEquals = " = ";
  // An empty name ("\t$ = value") reads as one: the other formats hold it, and the text writer
  // writes it so.
  const std::size_t equals = line.find(kEquals, kPrefix.size());
  if (!line.starts_with(kPrefix) || equals == std::string_view::npos) {
    return false;
  }
  name = line.substr(kPrefix.size(), equals - kPrefix.size());
  value = line.substr(equals + kEquals.size());
  return true;
}

bool parse_frame_line(std::string_view line, Address& address, std::string_view& resolved) {
  constexpr std::string_view kPrefix = "\t0x";
  if (!line.starts_with(kPrefix)) {
    return false;
  }
  const std::string_view rest = line.substr(kPrefix.size());
  const std::size_t n = read_hex_prefix(rest, address);
  if (n == 0) {
    return false;
  }
  if (n == rest.size()) {
    resolved = {};
    return true;
  }
  resolved = rest.substr(n + 1);
  return rest[n] == ' ' && !resolved.empty();
}

RegistryLine classify_registry_line(std::string_view line) {
  if (line.size() < 3) {
    return RegistryLine::None;
  }
  const std::string_view rest = line.substr(2);
  switch (line[0]) {
    case '@':
      if (line[1] == ' ' && hex_digit_run(rest) > 0) {
        return RegistryLine::Context;
      }
      break;
    case '<': {
      const std::size_t n = hex_digit_run(line.substr(1));
      if (n > 0 && line.substr(n + 1).starts_with("> : ")) {
        return RegistryLine::ResourceType;
      }
      break;
    }
    case ':':
      if (line[1] == ' ' && line.find(" => 0x") != std::string_view::npos) {
        return RegistryLine::Mapping;
      }
      break;
    case '&':
      if (line[1] == ' ' && line.find(" : ", 1) != std::string_view::npos) {
        return RegistryLine::Attachment;
      }
      break;
    default:
      break;
  }
  return RegistryLine::None;
}

std::string_view parse_context_line(std::string_view line, ContextInfo& context) {
  const std::string_view rest = line.substr(2);
  const std::size_t n = hex_digit_run(rest);
  if (!parse_hex(rest.substr(0, n), context.id) || !rest.substr(n).starts_with(" : ")) {
    return "malformed context registry line (expected '@ <hex id> : <name>')";
  }
  context.name = rest.substr(n + 3);
  return {};
}

std::string_view parse_resource_line(std::string_view line, ResourceType& type) {
  constexpr std::string_view kMalformed =
      "malformed resource registry line (expected '<mask> : type (description)')";
  const std::size_t n = hex_digit_run(line.substr(1));
  std::uint64_t mask = 0;
  if (!parse_hex(line.substr(1, n), mask) || mask == 0) {
    return "bad mask in a resource registry line";
  }
  std::string_view rest = line.substr(n + 1 + 4);  // after "> : "
  type.flags = 0;
  if (rest.ends_with(']')) {
    const std::size_t open = rest.rfind(" [");
    if (open == std::string_view::npos) {
      return kMalformed;
    }
    if (rest.substr(open).find("refcount") != std::string_view::npos) {
      type.flags |= ResourceType::kRefcount;
    }
    rest = rest.substr(0, open);
  }
  const std::size_t open = rest.find(" (");
  if (open == std::string_view::npos || !rest.ends_with(')')) {
    return kMalformed;
  }
  type.id = static_cast<std::uint32_t>(std::countr_zero(mask) + 1);
  type.type = rest.substr(0, open);
  type.description = rest.substr(open + 2, rest.size() - open - 3);
  return {};
}

std::string_view parse_mapping_line(std::string_view line, Mapping& mapping) {
  constexpr std::string_view kArrow = " => 0x";
  const std::size_t arrow = line.rfind(kArrow);
  const std::string_view range = line.substr(arrow + kArrow.size());
  const std::size_t dash = range.find("-0x");
  if (dash == std::string_view::npos || !parse_hex(range.substr(0, dash), mapping.from) ||
      !parse_hex(range.substr(dash + 3), mapping.to)) {
    return "malformed memory map line (expected ': <path> => 0x<from>-0x<to>')";
  }
  mapping.path = line.substr(2, arrow - 2);
  return {};
}

void parse_attachment_line(std::string_view line, Attachment& attachment) {
  const std::size_t separator = line.find(" : ", 1);
  attachment.name = line.substr(2, separator - 2);
  attachment.path = line.substr(separator + 3);
}

}  // namespace rtrace::sprtrace_text
