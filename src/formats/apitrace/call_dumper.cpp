#include "formats/apitrace/call_dumper.h"

#include <fmt/format.h>

#include <charconv>
#include <map>

namespace rtrace::apitrace {
namespace {

void append_double(std::string& out, double value, int precision) {
  // std::ostream's default notation at this precision: printf's %g (nan, -nan, inf kept),
  // which to_chars' general format reproduces, faster.
  char text[64];
  const auto result =
      std::to_chars(text, text + sizeof text, value, std::chars_format::general, precision);
  out.append(text, result.ptr);
}

void append_hex(std::string& out, std::uint64_t value) {
  out += "0x";
  fmt::format_to(std::back_inserter(out), "{:x}", value);
}

void append_decimal(std::string& out, auto value) {
  const fmt::format_int text(value);
  out.append(text.data(), text.size());
}

}  // namespace

CallDumper::CallDumper(const DumpOptions& options, BlobSaver save_blob)
    : options_(options), save_blob_(std::move(save_blob)) {
  if (options_.color) {
    normal_ = "\33[0m";
    bold_ = "\33[1m";
    italic_ = "";  // apitrace leaves italic out on purpose (badly supported by terminals)
    red_ = "\33[31m";
    pointer_ = "\33[32m";
    literal_ = "\33[34m";
  }
}

void CallDumper::properties(const TraceHeader& header, std::string& out) const {
  // apitrace keeps properties in a map: sorted by name, the last of a repeated name wins.
  std::map<std::string_view, std::string_view> sorted;
  for (const auto& [name, value] : header.properties) {
    sorted[name] = value;
  }
  for (const auto& [name, value] : sorted) {
    out += "// ";
    out += name;
    out += " = ";
    string(value, out);
    out += '\n';
  }
}

void CallDumper::call(const Call& call, std::string& out) {
  call_number_ = call.number;
  blob_number_ = 0;
  if (options_.call_numbers) {
    append_decimal(out, call.number);
    out += ' ';
  }
  if (options_.thread_ids) {
    fmt::format_to(std::back_inserter(out), "@{:x} ", call.thread);
  }
  out += (call.flags & kFlagNoSideEffects) != 0 ? normal_ : bold_;
  out += call.signature->name;
  out += normal_;
  out += '(';
  // Like apitrace, show arguments up to the last one present in the stream.
  std::size_t shown = call.args.size();
  while (shown > 0 && call.args[shown - 1] < 0) {
    --shown;
  }
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) {
      out += ", ";
    }
    if (options_.arg_names) {
      out += italic_;
      out += call.signature->arg_names[i];
      out += normal_;
      out += " = ";
    }
    if (call.args[i] >= 0) {
      value(call, call.value(call.args[i]), out);
    } else {
      out += '?';
    }
  }
  out += ')';
  if (call.ret >= 0) {
    out += " = ";
    value(call, call.value(call.ret), out);
  }
  if ((call.flags & (kFlagFake | kFlagIncomplete)) != 0) {
    out += " //";
    if ((call.flags & kFlagFake) != 0) {
      out += " fake";
    }
    if ((call.flags & kFlagIncomplete) != 0) {
      out += ' ';
      out += red_;
      out += "incomplete";
      out += normal_;
    }
  }
  out += '\n';
  if (options_.multiline) {
    if (call.has_backtrace) {
      out += bold_;
      out += red_;
      out += "Backtrace:\n";
      out += normal_;
      for (const StackFrame* f : call.backtrace) {
        frame(*f, out);
        out += '\n';
      }
    }
    if ((call.flags & kFlagEndFrame) != 0) {
      out += '\n';
    }
  }
}

// module[: function][+0xoffset][: file[:line]], `?` for an unknown module.
void CallDumper::frame(const StackFrame& frame, std::string& out) {
  out += frame.module ? *frame.module : "?";
  if (frame.function) {
    out += ": ";
    out += *frame.function;
  }
  if (frame.offset) {
    out += '+';
    append_hex(out, *frame.offset);
  }
  if (frame.file) {
    out += ": ";
    out += *frame.file;
    if (frame.line) {
      out += ':';
      append_decimal(out, *frame.line);
    }
  }
}

void CallDumper::value(const Call& call, const Value& v, std::string& out) {
  switch (v.kind) {
    case ValueKind::Null:
      out += literal_;
      out += "NULL";
      out += normal_;
      return;
    case ValueKind::Bool:
      out += literal_;
      out += v.number.boolean ? "true" : "false";
      out += normal_;
      return;
    case ValueKind::SInt:
      out += literal_;
      append_decimal(out, v.number.sint);
      out += normal_;
      return;
    case ValueKind::UInt:
      out += literal_;
      append_decimal(out, v.number.uint);
      out += normal_;
      return;
    case ValueKind::Float:
      out += literal_;
      append_double(out, v.number.single, 7);
      out += normal_;
      return;
    case ValueKind::Double:
      out += literal_;
      append_double(out, v.number.real, 16);
      out += normal_;
      return;
    case ValueKind::String:
      string(call.text(v), out);
      return;
    case ValueKind::WString:
      out += literal_;
      out += 'L';
      wide_string(call.wide(v), out);
      return;
    case ValueKind::Blob:
      blob(call, v, out);
      return;
    case ValueKind::Enum:
      enumeration(v, out);
      return;
    case ValueKind::Bitmask:
      bitmask(v, out);
      return;
    case ValueKind::Pointer:
      out += pointer_;
      append_hex(out, v.number.uint);
      out += normal_;
      return;
    case ValueKind::Array:
      if (v.size == 1) {
        out += '&';
        value(call, call.child(v, 0), out);
        return;
      }
      out += '{';
      for (std::uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) {
          out += ", ";
        }
        value(call, call.child(v, i), out);
      }
      out += '}';
      return;
    case ValueKind::Struct:
      out += '{';
      members(call, v, "", out);
      out += '}';
      return;
    case ValueKind::Repr:
      // Human-readable half normally; the machine half when dumping blobs, as apitrace does.
      value(call, call.child(v, options_.blobs ? 1 : 0), out);
      return;
  }
}

// Members `name = value`; an anonymous struct member is flattened into its parent.
const char* CallDumper::members(const Call& call, const Value& s, const char* separator,
                                std::string& out) {
  const auto& names = s.signature.structure->member_names;
  for (std::uint32_t i = 0; i < s.size; ++i) {
    const Value& member = call.child(s, i);
    if (names[i].empty() && member.kind == ValueKind::Struct) {
      separator = members(call, member, separator, out);
      continue;
    }
    out += separator;
    out += italic_;
    out += names[i];
    out += normal_;
    out += " = ";
    value(call, member, out);
    separator = ", ";
  }
  return separator;
}

void CallDumper::blob(const Call& call, const Value& v, std::string& out) {
  out += pointer_;
  if (options_.blobs && save_blob_) {
    std::string name = fmt::format("blob_call{}", call_number_);
    if (blob_number_ > 0) {
      name += fmt::format("_{}", blob_number_);
    }
    name += ".bin";
    ++blob_number_;
    save_blob_(name, call.text(v));
    out += "blob(\"";
    out += name;
    out += "\")";
  } else {
    out += "blob(";
    append_decimal(out, v.size);
    out += ')';
  }
  out += normal_;
}

// The first name whose value matches, else the number.
void CallDumper::enumeration(const Value& v, std::string& out) const {
  out += literal_;
  for (const auto& [name, value] : v.signature.enumeration->values) {
    if (value == v.number.sint) {
      out += name;
      out += normal_;
      return;
    }
  }
  append_decimal(out, v.number.sint);
  out += normal_;
}

// Flags in signature order: a flag matches when all its bits are set (a zero flag when the value
// is 0); matched bits are cleared; what is left over prints in hex.
void CallDumper::bitmask(const Value& v, std::string& out) const {
  std::uint64_t left = v.number.uint;
  bool first = true;
  for (const auto& [name, flag] : v.signature.bitmask->flags) {
    if ((flag != 0 && (left & flag) == flag) || (flag == 0 && left == 0)) {
      if (!first) {
        out += " | ";
      }
      out += literal_;
      out += name;
      out += normal_;
      left &= ~flag;
      first = false;
    }
    if (left == 0) {
      break;
    }
  }
  if (left != 0 || first) {
    if (!first) {
      out += " | ";
    }
    out += literal_;
    append_hex(out, left);
    out += normal_;
  }
}

void CallDumper::string(std::string_view text, std::string& out) const {
  out += literal_;
  out += '"';
  for (const char c : text) {
    if (c == '\0') {
      break;  // apitrace prints C strings: up to the first NUL
    }
    escaped(static_cast<unsigned char>(c), out);
  }
  out += '"';
  out += normal_;
}

void CallDumper::wide_string(std::span<const std::uint32_t> units, std::string& out) const {
  out += literal_;
  out += '"';
  for (const std::uint32_t c : units) {
    if (c == 0) {
      break;
    }
    escaped(c, out);
  }
  out += '"';
  out += normal_;
}

void CallDumper::escaped(std::uint32_t c, std::string& out) const {
  if (c == '"') {
    out += "\\\"";
  } else if (c == '\\') {
    out += "\\\\";
  } else if (c >= 0x20 && c <= 0x7e) {
    out += static_cast<char>(c);
  } else if (c == '\t') {
    out += '\t';
  } else if (c == '\r') {
    // dropped, as apitrace does
  } else if (c == '\n') {
    if (options_.multiline) {
      out += normal_;
      out += '\n';
      out += literal_;
    } else {
      out += "\\n";
    }
  } else {
    // apitrace's octal escape, bug included: its top digit repeats the middle one, and zero
    // digits are left out (0xe9 prints \551, 0x08 \110, 0x7f \777).
    const unsigned low = c & 7;
    const unsigned middle = (c >> 3) & 7;
    out += '\\';
    if (middle != 0) {
      out += static_cast<char>('0' + middle);
      out += static_cast<char>('0' + middle);
    }
    out += static_cast<char>('0' + low);
  }
}

}  // namespace rtrace::apitrace
