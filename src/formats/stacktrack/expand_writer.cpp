#include "formats/stacktrack/expand_writer.h"

#include <fmt/format.h>

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

}  // namespace

ExpandWriter::ExpandWriter(const EntrySchema& schema, ExpandOptions options)
    : schema_(schema), options_(options) {
  const RawLayout& layout = schema_.layout();
  for (std::size_t t = 0; t < layout.types.size(); ++t) {
    const TypeLayout& type = layout.types[t];
    const TypeBinding& binding = schema_.binding_at(t);
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
  auto it = std::back_inserter(out);
  out += '<';
  if (entry.binding == nullptr) {
    out += "INFO";
  } else {
    append_xml_escaped(out, entry.binding->layout->uname);
  }
  fmt::format_to(it, " flags=\"0x{:04x}\" pid=\"0x{:04x}\" seq=\"{}\"", entry.flags, entry.pid,
                 entry.sequence);
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
  auto it = std::back_inserter(out);
  if (options_.raw_times && (style == Style::Time || style == Style::Duration)) {
    style = Style::Unsigned;
  }
  switch (style) {
    case Style::Unsigned:
      out += fmt::format_int(value).str();
      break;
    case Style::Signed:
      out += fmt::format_int(static_cast<std::int64_t>(value)).str();
      break;
    case Style::Hex:
      fmt::format_to(it, "0x{:04x}", value);
      break;
    case Style::Time:
      fmt::format_to(it, "{:.6f}", process.seconds_since_start(value));
      break;
    case Style::Duration: {
      const std::uint64_t per_second = process.ticks_per_second();
      const double seconds = per_second == 0
                                 ? static_cast<double>(value)
                                 : static_cast<double>(value) / static_cast<double>(per_second);
      fmt::format_to(it, "{:.6f}", seconds);
      break;
    }
  }
}

}  // namespace rtrace::stacktrack
