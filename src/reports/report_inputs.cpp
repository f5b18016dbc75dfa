#include "reports/report_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "formats/format_registry.h"
#include "io/input_stream.h"
#include "protocol/pagemap_layout.h"

namespace rtrace::reports {
namespace {

namespace fs = std::filesystem;

// Whether the file starts like a trace (compressed or not): formats are known by content.
bool looks_like_trace(const fs::path& path) {
  try {
    const std::unique_ptr<InputStream> input = open_input(path.string());
    return detect_format(input->peek(kDetectBytes)) != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

// Whether `file` is one of the pagemap module's attachments of a trace among `traces`:
// "<stem>.<name>" with one of the attachment names, beside a trace named "<stem>.<anything>", or,
// for the stem "<pid>-<n>" the module gives them, beside a trace `rtrace record` named after its
// program, "<program>.<pid>.<anything>". (The trace's FILE packets name them; reading every trace
// of the directory to find out would cost a whole read each, and the writers name them so,
// docs/pagemap.md.)
bool is_attachment(const fs::path& file, const std::vector<fs::path>& traces) {
  const std::string suffix = file.extension().string();
  const bool attachment_name = suffix == std::string(".") + pagemap::kMapsName ||
                               suffix == std::string(".") + pagemap::kPagemapName ||
                               suffix == std::string(".") + pagemap::kKpageflagsName ||
                               suffix == std::string(".") + pagemap::kZeropagesName;
  if (!attachment_name || file.stem().empty()) {
    return false;
  }
  const std::string stem = file.stem().string();
  const std::string prefix = stem + ".";
  const std::size_t dash = stem.find('-');
  const std::string pid = stem.substr(0, dash);
  const bool pid_stem = dash != std::string::npos && dash > 0 &&
                        stem.find_first_not_of("0123456789-") == std::string::npos;
  return std::ranges::any_of(traces, [&](const fs::path& trace) {
    const std::string name = trace.filename().string();
    return name.starts_with(prefix) ||
           (pid_stem && name.find("." + pid + ".") != std::string::npos);
  });
}

struct Candidate {
  fs::path path;
  fs::file_time_type modified;
};

void expand_directory(const std::string& directory, bool newest, ReportInputs& inputs) {
  std::vector<Candidate> traces;
  std::vector<fs::path> others;  // files that are not traces: attachments, or skipped
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end;
       entry.increment(error)) {
    // symlink_status: a link in the directory is not ours to follow.
    if (!fs::is_regular_file(entry->symlink_status())) {
      continue;
    }
    if (!looks_like_trace(entry->path())) {
      others.push_back(entry->path());
      continue;
    }
    traces.push_back({entry->path(), entry->last_write_time()});
  }
  if (error) {
    throw std::runtime_error(fmt::format("{}: {}", directory, error.message()));
  }
  if (traces.empty()) {
    throw std::runtime_error(fmt::format("{}: no trace in this directory", directory));
  }
  std::ranges::sort(traces, {}, &Candidate::path);
  std::ranges::sort(others);
  std::vector<fs::path> trace_paths;
  for (const Candidate& trace : traces) {
    trace_paths.push_back(trace.path);
  }
  std::size_t attachments = 0;
  for (const fs::path& other : others) {
    const bool attached = is_attachment(other, trace_paths);
    attachments += attached ? 1 : 0;
    (attached ? inputs.attachments : inputs.skipped).push_back(other.string());
  }
  const std::string beside =
      attachments == 0
          ? std::string()
          : fmt::format(" ({} attachment file(s) beside them, in their traces' reports)",
                        attachments);
  if (newest) {
    // The latest modification; equal times: the last by name.
    const Candidate* latest = &traces.front();
    for (const Candidate& trace : traces) {
      if (trace.modified >= latest->modified) {
        latest = &trace;
      }
    }
    inputs.notes.push_back(fmt::format("{}: the newest of {} trace(s){}: {}", directory,
                                       traces.size(), beside, latest->path.string()));
    inputs.traces.push_back(latest->path.string());
    return;
  }
  inputs.notes.push_back(
      fmt::format("{}: every trace, {} of them, by name{}", directory, traces.size(), beside));
  for (const Candidate& trace : traces) {
    inputs.traces.push_back(trace.path.string());
  }
}

}  // namespace

ReportInputs expand_report_inputs(const std::vector<std::string>& paths, bool newest) {
  ReportInputs inputs;
  for (const std::string& path : paths) {
    std::error_code error;
    if (path != "-" && fs::is_directory(path, error)) {
      expand_directory(path, newest, inputs);
    } else {
      inputs.traces.push_back(path);
    }
  }
  return inputs;
}

}  // namespace rtrace::reports
