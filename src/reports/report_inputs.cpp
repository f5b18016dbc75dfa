#include "reports/report_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "formats/format_registry.h"
#include "io/input_stream.h"

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

struct Candidate {
  fs::path path;
  fs::file_time_type modified;
};

void expand_directory(const std::string& directory, bool newest, ReportInputs& inputs) {
  std::vector<Candidate> traces;
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end;
       entry.increment(error)) {
    // symlink_status: a link in the directory is not ours to follow.
    if (!fs::is_regular_file(entry->symlink_status())) {
      continue;
    }
    if (!looks_like_trace(entry->path())) {
      inputs.skipped.push_back(entry->path().string());
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
  if (newest) {
    // The latest modification; equal times: the last by name.
    const Candidate* latest = &traces.front();
    for (const Candidate& trace : traces) {
      if (trace.modified >= latest->modified) {
        latest = &trace;
      }
    }
    inputs.notes.push_back(fmt::format("{}: the newest of {} trace(s): {}", directory,
                                       traces.size(), latest->path.string()));
    inputs.traces.push_back(latest->path.string());
    return;
  }
  inputs.notes.push_back(
      fmt::format("{}: every trace, {} of them, by name", directory, traces.size()));
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
