// Parsers for the record lines of the text protocol (everything but the header).
//
// Each classify_* function tells from the first characters whether a line means to be a record
// of that kind; the matching parse_* function then reads it strictly and returns an error message
// (empty on success) instead of quietly taking a damaged record for a comment. Lines that do not
// look like any record are comments.
#pragma once

#include <string_view>

#include "model/records.h"

namespace rtrace::sprtrace_text {

// `<index>. [@<ctx> ][[<time>] ]<name>[<<type>>](<size>) = 0x<id>` (allocation),
// `...<name>[<<type>>](0x<id>)` (release), or rtrace's form for a call that does neither (an
// apitrace call, a StackTrack checkpoint, a scope entered or left):
// `...<name>[<<type>>]({<kind>})`, or `...({<kind>} <size>) = 0x<id>` when it has a size or an id.
// The original post-processor's grammar takes no `{` inside the parentheses, so it keeps such a
// line as a comment (see rtrace-process(1), TEXT OUTPUT).
struct CallLine {
  Call call;
  std::string_view function;
  std::string_view type_tag;  // what stood between < and >, empty when absent
};

// The `<kind>` of a call that neither allocates nor releases: "call", "enter" or "exit".
std::string_view neutral_call_keyword(CallKind kind);

// A line starting with digits and a dot.
bool classify_call_line(std::string_view line);
std::string_view parse_call_line(std::string_view line, CallLine& parsed);

// `\t$<name> = <value>`; false when malformed.
bool parse_argument_line(std::string_view line, std::string_view& name, std::string_view& value);

// `\t0x<address>[ <resolved>]`; false when malformed.
bool parse_frame_line(std::string_view line, Address& address, std::string_view& resolved);

enum class RegistryLine : std::uint8_t { None, Context, ResourceType, Mapping, Attachment };

RegistryLine classify_registry_line(std::string_view line);
// `@ <hex id> : <name>`
std::string_view parse_context_line(std::string_view line, ContextInfo& context);
// `<<hex mask>> : <type> (<description>)[ [refcount]]`
std::string_view parse_resource_line(std::string_view line, ResourceType& type);
// `: <path> => 0x<from>-0x<to>`
std::string_view parse_mapping_line(std::string_view line, Mapping& mapping);
// `& <name> : <path>`
void parse_attachment_line(std::string_view line, Attachment& attachment);

}  // namespace rtrace::sprtrace_text
