// XML attribute text as expand_events writes it: & < > " as entities, every other byte outside
// printable ASCII as a numeric character reference, so any bytes a trace holds print safely.
#pragma once

#include <string>
#include <string_view>

namespace rtrace::stacktrack {

inline void append_xml_escaped(std::string& out, std::string_view text) {
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (c < 0x20 || c > 0x7e) {
          out += "&#";
          out += std::to_string(c);
          out += ';';
        } else {
          out += ch;
        }
    }
  }
}

}  // namespace rtrace::stacktrack
