#include "formats/sprtrace_text/comment_lines.h"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/sprtrace_text/text_numbers.h"
#include "model/command_line.h"

namespace rtrace::sprtrace_text {
namespace {

constexpr std::array<std::string_view, kHeapFieldCount> kHeapLabels = {
    "heap bottom",
    "heap top",
    "lowest block",
    "highest block",
    "non-mapped space allocated from system",
    "number of free chunks",
    "number of fastbin blocks",
    "number of mapped regions",
    "space in mapped regions",
    "maximum total allocated space",
    "space available in freed fastbin blocks",
    "total allocated space",
    "total free space",
    "top-most, releasable (via malloc_trim) space",
};

// Takes `prefix` off the front of `text`; false if it is not there.
bool take(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) {
    return false;
  }
  text.remove_prefix(prefix.size());
  return true;
}

// Takes the decimal number up to `end` off the front of `text`.
template <typename T>
bool take_decimal(std::string_view& text, std::string_view end, T& value) {
  const std::size_t stop = text.find(end);
  if (stop == std::string_view::npos || !parse_decimal(text.substr(0, stop), value)) {
    return false;
  }
  text.remove_prefix(stop + end.size());
  return true;
}

// The text writer prints counters with %d like the original: values of 2^31 and more are
// negative.
bool parse_counter(std::string_view text, std::uint32_t& value) {
  std::int32_t signed_value = 0;
  if (!parse_decimal(text, signed_value)) {
    return false;
  }
  value = static_cast<std::uint32_t>(signed_value);
  return true;
}

}  // namespace

bool parse_module_line(std::string_view line, ModuleInfo& module) {
  if (!take(line, kModulePrefix)) {
    return false;
  }
  const std::size_t close = line.find("] ");
  const std::size_t open = line.rfind(" (");
  if (close == std::string_view::npos || open == std::string_view::npos || open < close + 2 ||
      !line.ends_with(')') || !parse_hex(line.substr(0, close), module.id)) {
    return false;
  }
  std::string_view version = line.substr(open + 2, line.size() - open - 3);
  const std::size_t dot = version.find('.');
  if (dot == std::string_view::npos ||
      !parse_decimal(version.substr(0, dot), module.version_major) ||
      !parse_decimal(version.substr(dot + 1), module.version_minor)) {
    return false;
  }
  module.name = line.substr(close + 2, open - close - 2);
  return true;
}

std::string_view heap_field_label(std::size_t field) {
  return kHeapLabels.at(field);
}

bool parse_heap_field(std::string_view line, std::size_t field, HeapInfo& info) {
  if (!take(line, "##   ") || !take(line, kHeapLabels.at(field)) || !take(line, " ")) {
    return false;
  }
  const std::array<Address*, 4> addresses = {&info.heap_bottom, &info.heap_top, &info.lowest_block,
                                             &info.highest_block};
  if (field < addresses.size()) {
    return take(line, "0x") && parse_hex(line, *addresses[field]);
  }
  const std::array<std::uint32_t*, 10> counters = {
      &info.arena,   &info.ordblks, &info.smblks,   &info.hblks,    &info.hblkhd,
      &info.usmblks, &info.fsmblks, &info.uordblks, &info.fordblks, &info.keepcost};
  return parse_counter(line, *counters[field - addresses.size()]);
}

bool parse_group_summary(std::string_view line, CallGroup& group) {
  return take(line, kGroupPrefix) &&
         take_decimal(line, " block(s) with total size ", group.block_count) &&
         parse_decimal(line, group.total_size);
}

bool parse_leak_type_line(std::string_view line, LeakSummary& summary) {
  if (!take(line, kLeakTypePrefix) || !line.ends_with("):")) {
    return false;
  }
  line.remove_suffix(2);
  const std::size_t open = line.find(" (");
  if (open == std::string_view::npos) {
    return false;
  }
  summary.type = line.substr(0, open);
  summary.description = line.substr(open + 2);
  return true;
}

bool parse_leak_total_line(std::string_view line, LeakSummary& summary) {
  return take(line, "# ") &&
         take_decimal(line, " block(s) leaked with total size of ", summary.blocks) &&
         take_decimal(line, " bytes", summary.bytes) && line.empty();
}

bool parse_command_line_line(std::string_view line, CommandLine& command_line) {
  const bool cut = take(line, kCutCommandLinePrefix);
  if (!cut && !take(line, kCommandLinePrefix)) {
    return false;
  }
  std::optional<std::vector<std::string>> arguments = parse_command_line(line);
  if (!arguments) {
    return false;
  }
  command_line = CommandLine{.arguments = std::move(*arguments), .cut = cut};
  return true;
}

std::string format_command_line_line(const CommandLine& command_line) {
  return std::string(command_line.cut ? kCutCommandLinePrefix : kCommandLinePrefix) +
         quote_command_line(command_line.arguments);
}

bool parse_trace_end_line(std::string_view line, TraceEnd& end) {
  end = TraceEnd{};
  std::uint64_t seconds = 0;
  if (!take(line, kTraceEndPrefix) || !take(line, "pid=") ||
      !take_decimal(line, ", reason=", end.pid)) {
    return false;
  }
  const std::size_t comma = line.find(", ");
  const std::optional<EndReason> reason = end_reason_from_name(line.substr(0, comma));
  if (!reason || comma == std::string_view::npos) {
    return false;
  }
  end.reason = *reason;
  line.remove_prefix(comma + 2);
  if (end.reason == EndReason::Signal &&
      !(take(line, "signal=") && take_decimal(line, ", ", end.signal))) {
    return false;
  }
  if (!take(line, "time=") || !take_decimal(line, ".", seconds) ||
      !take_decimal(line, ", peak rss=", end.time.microseconds) ||
      !take_decimal(line, ", rss=", end.peak_rss_bytes) || !parse_decimal(line, end.rss_bytes) ||
      end.time.microseconds >= 1'000'000 || seconds > UINT32_MAX) {
    return false;
  }
  end.time.seconds = static_cast<std::int64_t>(seconds);
  return true;
}

std::string format_trace_end_line(const TraceEnd& end) {
  std::string line =
      fmt::format("{}pid={}, reason={}, ", kTraceEndPrefix, end.pid, end_reason_name(end.reason));
  if (end.reason == EndReason::Signal) {
    line += fmt::format("signal={}, ", end.signal);
  }
  line += fmt::format("time={}.{:06}, peak rss={}, rss={}", end.time.seconds, end.time.microseconds,
                      end.peak_rss_bytes, end.rss_bytes);
  return line;
}

bool parse_leak_kinds_line(std::string_view line, std::uint32_t& pid) {
  std::uint64_t blocks = 0;
  return take(line, kLeakKindsPrefix) && take(line, "pid=") &&
         take_decimal(line, ", blocks=", pid) && parse_decimal(line, blocks);
}

bool parse_leak_kind_line(std::string_view line, std::uint32_t& pid, BlockKind& block) {
  if (!take(line, kLeakKindPrefix) || !take(line, "pid=") || !take_decimal(line, ", 0x", pid)) {
    return false;
  }
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos || !parse_hex(line.substr(0, space), block.resource_id)) {
    return false;
  }
  const std::optional<LeakKind> kind = leak_kind_from_option(line.substr(space + 1));
  if (!kind) {
    return false;
  }
  block.kind = *kind;
  return true;
}

std::string format_leak_kinds_lines(const LeakKinds& kinds) {
  std::string lines =
      fmt::format("{}pid={}, blocks={}", kLeakKindsPrefix, kinds.pid, kinds.blocks.size());
  for (const BlockKind& block : kinds.blocks) {
    lines += fmt::format("\n{}pid={}, {:#x} {}", kLeakKindPrefix, kinds.pid, block.resource_id,
                         leak_kind_option(block.kind));
  }
  return lines;
}

}  // namespace rtrace::sprtrace_text
