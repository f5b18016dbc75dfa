#include "formats/stacktrack/layout_xml.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <pugixml.hpp>

#include "formats/stacktrack/default_layout.h"
#include "formats/stacktrack/entry_schema.h"
#include "formats/stacktrack/xml_text.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"

namespace rtrace::stacktrack {
namespace {

constexpr std::size_t kMaxDescriptionBytes = std::size_t{1} << 20;

// ---- writing ----

void attribute(std::string& out, std::string_view name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  append_xml_escaped(out, value);
  out += '"';
}

void attribute(std::string& out, std::string_view name, std::uint32_t value) {
  attribute(out, name, std::to_string(value));
}

void write_member(std::string& out, const MemberLayout& m) {
  out += "<MEMBER";
  attribute(out, "name", m.name);
  attribute(out, "type", m.type);
  attribute(out, "size", m.size);
  attribute(out, "offset", m.offset);
  attribute(out, "desc", m.desc);
  out += "/>\n";
}

// ---- reading ----

// Where a node is, as a line number of the description (XML is text).
class Source {
 public:
  Source(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

  [[noreturn]] void fail(std::ptrdiff_t offset, std::string_view what) const {
    const auto end = static_cast<std::size_t>(
        std::clamp<std::ptrdiff_t>(offset, 0, static_cast<std::ptrdiff_t>(text_.size())));
    const auto line = 1 + std::count(text_.begin(), text_.begin() + end, '\n');
    throw InputError(name_, static_cast<std::uint64_t>(line), what);
  }
  [[noreturn]] void fail(const pugi::xml_node& node, std::string_view what) const {
    fail(node.offset_debug(), what);
  }

  // A decimal or 0x-prefixed hexadecimal unsigned 32-bit attribute.
  std::uint32_t number(const pugi::xml_node& node, const char* name) const {
    const std::string_view text = required(node, name);
    std::string_view digits = text;
    int base = 10;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
      digits.remove_prefix(2);
      base = 16;
    }
    std::uint32_t value = 0;
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
      fail(node, fmt::format("<{}> {}=\"{}\" is not a 32-bit number", node.name(), name, text));
    }
    return value;
  }

  std::string_view required(const pugi::xml_node& node, const char* name) const {
    const pugi::xml_attribute a = node.attribute(name);
    if (!a) {
      fail(node, fmt::format("<{}> has no {} attribute", node.name(), name));
    }
    return a.value();
  }

  static std::string optional(const pugi::xml_node& node, const char* name,
                              const char* fallback = "") {
    return node.attribute(name).as_string(fallback);
  }

 private:
  std::string_view text_;
  std::string name_;
};

MemberLayout read_member(const Source& src, const pugi::xml_node& node) {
  return MemberLayout{.name = std::string(src.required(node, "name")),
                      .type = std::string(src.required(node, "type")),
                      .size = src.number(node, "size"),
                      .offset = src.number(node, "offset"),
                      .desc = Source::optional(node, "desc")};
}

std::vector<MemberLayout> read_members(const Source& src, const pugi::xml_node& parent) {
  std::vector<MemberLayout> members;
  for (const pugi::xml_node& m : parent.children("MEMBER")) {
    if (members.size() == kMaxMembers) {
      src.fail(m, fmt::format("more than {} members", kMaxMembers));
    }
    members.push_back(read_member(src, m));
  }
  return members;
}

// HEADER's members, by position: flags, pid, sequence.
void read_header(const Source& src, const pugi::xml_node& header, RawLayout& layout) {
  const std::vector<MemberLayout> members = read_members(src, header);
  if (members.size() != 3) {
    src.fail(header, "<HEADER> must have 3 members: flags, pid, sequence");
  }
  layout.flags = members[0];
  layout.pid = members[1];
  layout.sequence = members[2];
}

TypeLayout read_type(const Source& src, const pugi::xml_node& node) {
  TypeLayout type{.uname = std::string(src.required(node, "uname")),
                  .name = Source::optional(node, "name"),
                  .typeindex = src.number(node, "typeindex"),
                  .type = Source::optional(node, "type"),
                  .size = node.attribute("size") ? src.number(node, "size") : 0,
                  .followedby = Source::optional(node, "followedby", "~"),
                  .desc = Source::optional(node, "desc"),
                  .members = read_members(src, node),
                  .selector = 0};
  return type;
}

void read_flags(const Source& src, const pugi::xml_node& root, RawLayout& layout) {
  for (const pugi::xml_node& f : root.children("FLAG")) {
    if (layout.flag_values.size() == 2 * kMaxTypes) {
      src.fail(f, "too many FLAG elements");
    }
    layout.flag_values.push_back({std::string(src.required(f, "name")), src.number(f, "value")});
  }
  // The rules the document's trimmed sample does not show: the default layout's.
  for (const FlagValue& fallback : default_layout().flag_values) {
    if (fallback.name.starts_with("IS_") && fallback.name != kIsInfoFlag) {
      continue;
    }
    const bool given = std::any_of(layout.flag_values.begin(), layout.flag_values.end(),
                                   [&](const FlagValue& f) { return f.name == fallback.name; });
    if (!given) {
      layout.flag_values.push_back(fallback);
    }
  }
}

RawLayout read_root(const Source& src, const pugi::xml_node& root) {
  RawLayout layout;
  layout.version = src.number(root, "version");
  layout.entry_size = src.number(root, "size");
  layout.payload_size = src.number(root, "payload_size");
  layout.payload_offset = src.number(root, "payload_offset");
  layout.magic = src.number(root, "magic");
  const RawLayout& fallback = default_layout();
  layout.flags = fallback.flags;
  layout.pid = fallback.pid;
  layout.sequence = fallback.sequence;
  if (const pugi::xml_node header = root.child("HEADER")) {
    read_header(src, header, layout);
  }
  for (const pugi::xml_node& t : root.children("TYPE")) {
    if (layout.types.size() == kMaxTypes) {
      src.fail(t, fmt::format("more than {} types", kMaxTypes));
    }
    layout.types.push_back(read_type(src, t));
  }
  read_flags(src, root, layout);
  if (const auto problem = finish_layout(layout)) {
    src.fail(root, *problem);
  }
  if (const auto problem = EntrySchema::problem(layout)) {
    src.fail(root, *problem);
  }
  return layout;
}

}  // namespace

std::string layout_to_xml(const RawLayout& layout) {
  std::string out = "<RAW_FORMAT";
  attribute(out, "version", layout.version);
  attribute(out, "size", layout.entry_size);
  attribute(out, "payload_size", layout.payload_size);
  attribute(out, "payload_offset", layout.payload_offset);
  attribute(out, "magic", fmt::format("{:#010x}", layout.magic));
  attribute(out, "magic_raw", fmt::format("{:#010x}", __builtin_bswap32(layout.magic)));
  out += ">\n<HEADER>\n";
  for (const MemberLayout* m : {&layout.flags, &layout.pid, &layout.sequence}) {
    write_member(out, *m);
  }
  out += "</HEADER>\n";
  for (const TypeLayout& t : layout.types) {
    out += "<TYPE";
    attribute(out, "uname", t.uname);
    attribute(out, "name", t.name);
    attribute(out, "typeindex", t.typeindex);
    attribute(out, "type", t.type);
    attribute(out, "size", t.size);
    attribute(out, "followedby", t.followedby);
    attribute(out, "desc", t.desc);
    out += ">\n";
    for (const MemberLayout& m : t.members) {
      write_member(out, m);
    }
    out += "</TYPE>\n";
  }
  for (const FlagValue& f : layout.flag_values) {
    out += "<FLAG";
    attribute(out, "name", f.name);
    attribute(out, "value", fmt::format("{:#06x}", f.value));
    out += "/>\n";
  }
  out += "</RAW_FORMAT>\n";
  return out;
}

RawLayout layout_from_xml(std::string_view xml, const std::string& name) {
  const Source src(xml, name);
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8);
  if (!parsed) {
    src.fail(parsed.offset, fmt::format("not a RAW_FORMAT description: {}", parsed.description()));
  }
  const pugi::xml_node root = doc.child("RAW_FORMAT");
  if (!root) {
    src.fail(0, "not a RAW_FORMAT description (no <RAW_FORMAT> element)");
  }
  return read_root(src, root);
}

RawLayout load_layout_file(const std::string& path) {
  const std::unique_ptr<InputStream> input = open_input(path);
  const auto bytes = input->peek(kMaxDescriptionBytes + 1);
  if (bytes.size() > kMaxDescriptionBytes) {
    throw InputError(path, 0,
                     fmt::format("a RAW_FORMAT description larger than {} bytes; refused",
                                 kMaxDescriptionBytes));
  }
  return layout_from_xml(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

}  // namespace rtrace::stacktrack
