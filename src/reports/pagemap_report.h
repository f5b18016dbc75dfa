// The PAGES section of `rtrace report`: what the pagemap module's attachments say about the
// process's private writable mappings when tracing stopped (per mapping: size, resident pages,
// resident pages holding only zero bytes, i.e. memory allocated and never written or cleared).
// The attachments are files beside the trace (FILE packets name them relative to its directory;
// layout in protocol/pagemap_layout.h and docs/pagemap.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/records.h"
#include "reports/json_layout.h"

namespace rtrace::reports {

struct PagemapMapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::string permissions;  // from the maps copy ("rw-p"), empty when it does not list it
  std::string path;         // from the maps copy: the file, [heap], [stack], or empty (anonymous)
  std::uint64_t pages = 0;
  std::uint64_t resident = 0;
  std::optional<std::uint64_t> zero;  // none without the .zeropages file
};

struct PagemapSummary {
  std::uint64_t page_size = 0;
  std::vector<PagemapMapping> mappings;  // in the order of the maps
  // Attachments that are missing or damaged, as `FILE: what` / `FILE:OFFSET: what`.
  std::vector<std::string> problems;
};

// The summary of the pagemap module's attachments among `attachments`, read from
// `trace_directory`; nothing when the trace has none. Attachment paths must be plain file names
// (the protocol stores them beside the trace): any other is a problem, never opened.
std::optional<PagemapSummary> read_pagemap_attachments(
    const std::vector<Attachment>& attachments, const std::filesystem::path& trace_directory);

// The directory a trace's attachments are in: the trace file's, the current one for standard
// input ("-").
std::filesystem::path attachment_directory(const std::string& trace_path);

// The text section ("PAGES ...").
std::string render_pagemap_text(const PagemapSummary& summary);
// The JSON value of `rtrace report --json`'s "pagemap" key.
Json render_pagemap_json(const PagemapSummary& summary);

}  // namespace rtrace::reports
