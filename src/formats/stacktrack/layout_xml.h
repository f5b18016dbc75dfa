// A RawLayout as the RAW_FORMAT XML document of `expand_events --show_format`, both ways.
//
// The document's form, with what rtrace adds so that a description is complete:
//   <RAW_FORMAT version= size= payload_size= payload_offset= magic= magic_raw=>
//   <HEADER>                                  (added: where flags, pid and sequence are)
//   <MEMBER name= type= size= offset= desc=/> x3
//   </HEADER>
//   <TYPE uname= name= typeindex= type= size= followedby= desc=>
//   <MEMBER name= type= size= offset= desc=/> ...
//   </TYPE> ...
//   <FLAG name= value=/> ...                  (IS_<type>, and the rules: see raw_layout.h)
//   </RAW_FORMAT>
// Reading accepts a description without HEADER or without the rule flags (the original tool's
// output may lack them): the default layout's header and rules are used then.
#pragma once

#include <string>

#include "formats/stacktrack/raw_layout.h"

namespace rtrace::stacktrack {

// The document, one element per line, ending in a newline.
std::string layout_to_xml(const RawLayout& layout);

// Parses a description; `name` appears in errors. Throws InputError (`name:LINE: what`).
RawLayout layout_from_xml(std::string_view xml, const std::string& name);

// Reads the description in `path` (at most 1 MiB). Throws InputError or std::runtime_error.
RawLayout load_layout_file(const std::string& path);

}  // namespace rtrace::stacktrack
