// Which traces `rtrace report` reads: the paths of its command line, where a directory stands
// for every trace in it (or only the newest).
#pragma once

#include <string>
#include <vector>

namespace rtrace::reports {

struct ReportInputs {
  std::vector<std::string> traces;   // in command-line order; a directory's by name
  std::vector<std::string> skipped;  // files of a directory that are not traces
  // Files of a directory that the pagemap module attached to a trace beside them
  // (<pid>-<n>.maps, .pagemap, .kpageflags, .zeropages beside <pid>-<n>.rtrace): read by that
  // trace's report (its PAGES section), neither reports of their own nor skipped.
  std::vector<std::string> attachments;
  // One line saying which traces a directory stood for, for the top of the report.
  std::vector<std::string> notes;
};

// Expands `paths`: a file stays as it is (and "-" is standard input); a directory becomes every
// regular file in it whose content starts like a trace format, sorted by name, or with `newest`
// only the most recently modified of them. Symbolic links inside a directory are not followed.
// Throws std::runtime_error for a directory without traces or a path that cannot be read.
ReportInputs expand_report_inputs(const std::vector<std::string>& paths, bool newest);

}  // namespace rtrace::reports
