#include "formats/stacktrack/expand_writer.h"

#include <charconv>
#include <iterator>

#include "formats/stacktrack/xml_text.h"

namespace rtrace::stacktrack {
namespace {

// Members whose meaning decides how they print (NOTES.md); the others print by signedness.
ExpandWriter::Style style_of(Field field, ExpandWriter::Style by_type) {
  using Style = ExpandWriter::Style;
  switch (field) {
    case Field::Tid:
    case Field::TimeType:
    case Field::ProcessId:
      return Style::Hex;
    case Field::When:
    case Field::StartHires:
      return Style::Time;
    case Field::TimeDivisor:
      return Style::Duration;
    default:
      return by_type;
  }
}

// The writer runs once per entry and member, millions of times: numbers are formatted with
// std::to_chars, which prints exactly what printf's %u and %f print, without parsing a format.

template <typename Integer>
void append_decimal(std::string& out, Integer value) {
  char digits[24];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
  out.append(digits, end);
}

// 0x%04x
void append_hex(std::string& out, std::uint64_t value) {
  char digits[16];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), value, 16).ptr;
  const auto length = static_cast<std::size_t>(end - digits);
  out += "0x";
  if (length < 4) {
    out.append(4 - length, '0');
  }
  out.append(digits, length);
}

// %f
void append_seconds(std::string& out, double seconds) {
  char digits[400];  // the widest double in fixed notation with 6 decimals
  const auto end =
      std::to_chars(std::begin(digits), std::end(digits), seconds, std::chars_format::fixed, 6).ptr;
  out.append(digits, end);
}

}  // namespace

ExpandWriter::ExpandWriter(const EntrySchema& schema, ExpandOptions options) : options_(options) {
  const RawLayout& layout = schema.layout();
  for (std::size_t t = 0; t < layout.types.size(); ++t) {
    const TypeLayout& type = layout.types[t];
    const TypeBinding& binding = schema.binding_at(t);
    for (std::size_t m = 0; m < type.members.size(); ++m) {
      const MemberLayout& member = type.members[m];
      const std::int8_t field = binding.member_field[m];
      Style style = is_signed_type(member.type) ? Style::Signed : Style::Unsigned;
      if (field < 0) {
        style = member.type == "hitime_t" ? Style::Time : style;
      } else {
        style = style_of(static_cast<Field>(field), style);
      }
      styles_[t][m] = style;
      std::string prefix = " ";
      append_xml_escaped(prefix, member.name);
      prefixes_[t][m] = prefix + "=\"";
    }
  }
}

void ExpandWriter::write(const Entry& entry, std::string& out) const {
  out += '<';
  if (entry.binding == nullptr) {
    out += "INFO";
  } else {
    append_xml_escaped(out, entry.binding->layout->uname);
  }
  out += " flags=\"";
  append_hex(out, entry.flags);
  out += "\" pid=\"";
  append_hex(out, entry.pid);
  out += "\" seq=\"";
  append_decimal(out, entry.sequence);
  out += '"';
  if (entry.binding == nullptr) {
    out += " text=\"";
    append_xml_escaped(out, entry.info_text);
    out += "\"/>\n";
    return;
  }
  const std::size_t t = entry.binding->index;
  for (std::size_t m = 0; m < entry.values.size(); ++m) {
    out += prefixes_[t][m];
    write_member(styles_[t][m], entry.values[m], *entry.process, out);
    out += '"';
  }
  out += "/>\n";
}

void ExpandWriter::write_member(Style style, std::uint64_t value, const ProcessContext& process,
                                std::string& out) const {
  if (options_.raw_times && (style == Style::Time || style == Style::Duration)) {
    style = Style::Unsigned;
  }
  switch (style) {
    case Style::Unsigned:
      append_decimal(out, value);
      break;
    case Style::Signed:
      append_decimal(out, static_cast<std::int64_t>(value));
      break;
    case Style::Hex:
      append_hex(out, value);
      break;
    case Style::Time:
      append_seconds(out, process.seconds_since_start(value));
      break;
    case Style::Duration: {
      const std::uint64_t per_second = process.ticks_per_second();
      append_seconds(out, per_second == 0
                              ? static_cast<double>(value)
                              : static_cast<double>(value) / static_cast<double>(per_second));
      break;
    }
  }
}

}  // namespace rtrace::stacktrack
