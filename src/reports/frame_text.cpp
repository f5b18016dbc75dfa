#include "reports/frame_text.h"

#include <fmt/format.h>

#include <array>

namespace rtrace::reports {
namespace {

std::string position_text(const SourcePosition& where, std::string_view module) {
  std::string text = where.qualified_name();
  if (!where.file.empty()) {
    text += fmt::format(" at {}", where.file);
    if (where.line != 0) {
      text += fmt::format(":{}", where.line);
    }
  } else if (!module.empty()) {
    text += fmt::format(" from {}", module);
  }
  return text;
}

LogicalFrame resolved_frame(const SourcePosition& where, std::string_view module, bool inlined) {
  LogicalFrame frame{.label = position_text(where, module),
                     .function = where.function,
                     .module = std::string(module),
                     .inlined = inlined};
  frame.key = frame.label + (inlined ? " [inlined]" : "");
  if (inlined) {
    frame.label += " [inlined]";
  }
  return frame;
}

std::string unresolved_label(const FrameDetail& frame) {
  if (frame.offset && !frame.module.empty()) {
    return fmt::format("{}+{:#x}", frame.module, *frame.offset);
  }
  if (!frame.module.empty()) {
    return fmt::format("{:#x} in {}", frame.address, frame.module);
  }
  return fmt::format("{:#x}", frame.address);
}

bool resolved(const FrameDetail& frame) {
  return !frame.symbol.where.function.empty() || !frame.symbol.where.file.empty();
}

}  // namespace

std::vector<LogicalFrame> logical_frames(const FrameDetail& frame) {
  if (!resolved(frame)) {
    const std::string label = unresolved_label(frame);
    return {LogicalFrame{.label = label, .module = std::string(frame.module), .key = label}};
  }
  const Symbol& symbol = frame.symbol;
  std::vector<LogicalFrame> frames{
      resolved_frame(symbol.where, frame.module, !symbol.inlined_by.empty())};
  for (std::size_t i = 0; i < symbol.inlined_by.size(); ++i) {
    frames.push_back(
        resolved_frame(symbol.inlined_by[i], frame.module, i + 1 < symbol.inlined_by.size()));
  }
  return frames;
}

std::string frame_key(const FrameDetail& frame) {
  if (frame.offset && !frame.module.empty()) {
    return fmt::format("{}+{:#x}", frame.module, *frame.offset);
  }
  if (resolved(frame)) {
    std::string key;
    for (const LogicalFrame& f : logical_frames(frame)) {
      key += f.key;
      key += '\n';
    }
    return key;
  }
  return fmt::format("{:#x}", frame.address);
}

std::string shorten_templates(std::string_view text) {
  // Operators whose names hold angle brackets, longest first.
  constexpr std::array<std::string_view, 10> kOperators{
      "operator<=>", "operator<<=", "operator>>=", "operator<<", "operator>>",
      "operator<=",  "operator>=",  "operator->",  "operator<",  "operator>"};
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < text.size();) {
    bool was_operator = false;
    for (const std::string_view op : kOperators) {
      if (text.substr(i).starts_with(op)) {
        if (depth == 0) {
          out += op;
        }
        i += op.size();
        was_operator = true;
        break;
      }
    }
    if (was_operator) {
      continue;
    }
    const char c = text[i++];
    if (c == '<') {
      if (depth++ == 0) {
        out += c;
      }
    } else if (c == '>' && depth > 0) {
      if (--depth == 0) {
        out += c;
      }
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

}  // namespace rtrace::reports
