// ERRORS: the releases memcheck reports as errors, under memcheck's names. "Invalid free() /
// delete / delete[] / realloc()": a block released again (double free: the release's backtrace,
// the first release's and the allocation's) or an address never allocated (a stack address, a
// pointer into a block: the release's backtrace). "Mismatched free() / delete / delete []": a
// block released by another allocator family than its allocator's (the allocation's and the
// release's backtraces; MISMATCHED RELEASES counts them by site). Shown only when there is one.
#include <fmt/format.h>

#include <iterator>

#include "reports/human_units.h"
#include "reports/section_table.h"
#include "reports/sections/site_lists.h"

namespace rtrace::reports {
namespace {

constexpr std::string_view kInvalidName = "Invalid free() / delete / delete[] / realloc()";
constexpr std::string_view kMismatchedName = "Mismatched free() / delete / delete []";

bool has_errors(const ReportData& data) {
  return !data.invalid_releases.empty() || !data.mismatched_releases.empty();
}

std::string_view cause_option(const InvalidRelease& invalid) {
  return invalid.cause == InvalidRelease::Cause::AlreadyReleased ? "double-free"
                                                                 : "never-allocated";
}

std::string cause_text(const InvalidRelease& invalid) {
  if (invalid.cause == InvalidRelease::Cause::AlreadyReleased) {
    return fmt::format("a block of {} bytes released before (double free)", invalid.size);
  }
  return "never allocated (not a heap block's start)";
}

// The release's backtrace, and a double free's first release's and allocation's.
void append_invalid(std::string& out, const ReportData& data, const InvalidRelease& invalid,
                    const RenderOptions& options) {
  fmt::format_to(std::back_inserter(out), "    {} of {:#x} (call {}): {}, {} time(s)\n",
                 invalid.released_by, invalid.id, invalid.first_call, cause_text(invalid),
                 invalid.count);
  out += "     released at:\n";
  append_frames(out, invalid.release_frame_names, options);
  if (invalid.cause != InvalidRelease::Cause::AlreadyReleased) {
    return;
  }
  out += "     first released at:\n";
  append_frames(out, invalid.first_release_frame_names, options);
  out += "     allocated at:\n";
  append_frames(out, invalid.site ? data.frame_names(data.sites[*invalid.site]) : FrameNames{},
                options);
}

void append_mismatched(std::string& out, const ReportData& data, const MismatchedRelease& m,
                       const RenderOptions& options) {
  fmt::format_to(std::back_inserter(out), "    {} block(s) of {} from {} released by {}\n",
                 m.blocks, human_bytes(m.bytes), m.allocated_by, m.released_by);
  out += "     released at:\n";
  append_frames(out, m.release_frame_names, options);
  out += "     allocated at:\n";
  append_frames(out, data.frame_names(data.sites[m.site]), options);
}

// `count` entries of `name`, the first --top of them by `append`.
template <typename Entry, typename Append>
void append_group(std::string& out, std::string_view name, const std::vector<Entry>& entries,
                  const RenderOptions& options, Append append) {
  if (entries.empty()) {
    return;
  }
  std::uint64_t occurrences = 0;
  for (const Entry& entry : entries) {
    occurrences += entry.count;
  }
  fmt::format_to(std::back_inserter(out), "  {}: {} error(s)\n", name, occurrences);
  for (std::size_t i = 0; i < entries.size() && i < options.top; ++i) {
    append(entries[i]);
  }
  if (entries.size() > options.top) {
    fmt::format_to(std::back_inserter(out), "    ... {} more\n", entries.size() - options.top);
  }
}

// A mismatched release counted as memcheck counts errors: once per block.
struct MismatchEntry {
  const MismatchedRelease* release;
  std::uint64_t count;
};

std::vector<MismatchEntry> mismatch_entries(const ReportData& data) {
  std::vector<MismatchEntry> entries;
  for (const MismatchedRelease& m : data.mismatched_releases) {
    entries.push_back({.release = &m, .count = m.blocks});
  }
  return entries;
}

void text(const SectionInput& input, std::string& out) {
  const ReportData& data = input.data;
  if (!has_errors(data)) {
    return;
  }
  out += "\nERRORS (releases memcheck reports, by its names)\n";
  append_group(
      out, kInvalidName, data.invalid_releases, input.options,
      [&](const InvalidRelease& invalid) { append_invalid(out, data, invalid, input.options); });
  append_group(out, kMismatchedName, mismatch_entries(data), input.options,
               [&](const MismatchEntry& entry) {
                 append_mismatched(out, data, *entry.release, input.options);
               });
}

Json invalid_json(const ReportData& data, const InvalidRelease& invalid,
                  const RenderOptions& options) {
  Json entry;
  entry["error"] = kInvalidName;
  entry["cause"] = cause_option(invalid);
  entry["released_by"] = json_text(invalid.released_by);
  entry["address"] = fmt::format("{:#x}", invalid.id);
  entry["call"] = invalid.first_call;
  entry["count"] = invalid.count;
  entry["release_backtrace"] = frames_json(invalid.release_frame_names, options);
  if (invalid.cause == InvalidRelease::Cause::AlreadyReleased) {
    entry["bytes"] = invalid.size;
    entry["first_release_backtrace"] = frames_json(invalid.first_release_frame_names, options);
    entry["backtrace"] = frames_json(
        invalid.site ? data.frame_names(data.sites[*invalid.site]) : FrameNames{}, options);
  }
  return entry;
}

Json mismatched_json(const ReportData& data, const MismatchedRelease& m,
                     const RenderOptions& options) {
  Json entry;
  entry["error"] = kMismatchedName;
  entry["cause"] = "mismatched";
  entry["allocated_by"] = json_text(m.allocated_by);
  entry["released_by"] = json_text(m.released_by);
  entry["count"] = m.blocks;
  entry["bytes"] = m.bytes;
  entry["release_backtrace"] = frames_json(m.release_frame_names, options);
  entry["backtrace"] = frames_json(data.frame_names(data.sites[m.site]), options);
  return entry;
}

// Every error, without the --top cut: scripts count them.
Json errors_json(const ReportData& data, const RenderOptions& options) {
  Json errors = Json::array();
  for (const InvalidRelease& invalid : data.invalid_releases) {
    errors.push_back(invalid_json(data, invalid, options));
  }
  for (const MismatchedRelease& m : data.mismatched_releases) {
    errors.push_back(mismatched_json(data, m, options));
  }
  return errors;
}

void json(const SectionInput& input, JsonLines& out) {
  out.push_back({{"errors", errors_json(input.data, input.options)}});
}

// The frames as the trace names them, as the page's other backtraces.
Json html_frames(const FrameNames& frames) {
  Json names = Json::array();
  for (const std::string_view frame : frames) {
    names.push_back(json_text(frame));
  }
  return names;
}

void html(const SectionInput& input, HtmlSectionParts& out) {
  const ReportData& data = input.data;
  if (!has_errors(data)) {
    return;
  }
  Json rows = Json::array();
  for (const InvalidRelease& invalid : data.invalid_releases) {
    const bool twice = invalid.cause == InvalidRelease::Cause::AlreadyReleased;
    rows.push_back(
        Json::array({kInvalidName,
                     fmt::format("{} of {:#x} (call {}): {}", invalid.released_by, invalid.id,
                                 invalid.first_call, cause_text(invalid)),
                     invalid.count, html_frames(invalid.release_frame_names),
                     html_frames(twice ? invalid.first_release_frame_names : FrameNames{}),
                     html_frames(twice && invalid.site ? data.frame_names(data.sites[*invalid.site])
                                                       : FrameNames{})}));
  }
  for (const MismatchedRelease& m : data.mismatched_releases) {
    rows.push_back(Json::array(
        {kMismatchedName, fmt::format("from {} released by {}", m.allocated_by, m.released_by),
         m.blocks, html_frames(m.release_frame_names), Json::array(),
         html_frames(data.frame_names(data.sites[m.site]))}));
  }
  out.tables.push_back(html_table(
      "errors", "Errors",
      "releases memcheck reports as errors, by its names: releases of blocks released before "
      "(double frees) or never allocated, and releases by another allocator family",
      Json::array({Json::array({"text", "error"}), Json::array({"text", "what"}),
                   Json::array({"count", "times"}), Json::array({"backtrace", "released at"}),
                   Json::array({"backtrace", "first released at"}),
                   Json::array({"backtrace", "allocated at"})}),
      std::move(rows)));
}

}  // namespace

ReportSection errors_section() {
  return {.name = "errors", .text = text, .json = json, .html = html};
}

}  // namespace rtrace::reports
