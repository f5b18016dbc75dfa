// `rtrace report --html FILE`: the report as one self-contained HTML page that works offline
// (from file://, no network): summary figures, a timeline of live bytes and blocks per resource
// type with the peak marked, an interactive flame graph (icicle) switchable between leaked,
// peak, allocated bytes and allocation counts, with search and click-to-zoom, the report's
// tables with sortable columns, the size histograms and, with --diff, the growth per backtrace.
//
// The page's script and style are html_report.js and html_report.css, embedded at build time;
// the data goes in as one JSON blob that the script renders. Everything heavy is aggregated
// here (html_profile.h), so the page of a trace of millions of calls stays a few megabytes.
//
// The page honours a URL fragment, for links and tests:
//   #weight=leaked|peak|allocated|count&type=NAME&search=REGEX&zoom=FRAME
// (zoom: the first frame of that exact name, depth first), and &sort=SECTION.COLUMN sorts a
// table as a click on its header does.
#pragma once

#include <cstddef>
#include <string>

#include "exports/html_profile.h"
#include "reports/report_data.h"
#include "reports/report_diff.h"
#include "reports/report_sections.h"

namespace rtrace::exporters {

struct HtmlReportInput {
  const reports::ReportData& data;
  const HtmlProfile& profile;       // of the same trace, after finish()
  const reports::ReportDiff* diff;  // may be null (no --diff)
  // How the tables are chosen (sites per table, wrappers, the call-tree views asked for). Names
  // stay whole: the page shortens them itself when its switch says so.
  reports::RenderOptions tables{};
  // Flame graph nodes under this share of every weight of their type are left out.
  double min_share = HtmlProfile::kDefaultMinShare;
};

// The whole page.
std::string render_html_report(const HtmlReportInput& input);

}  // namespace rtrace::exporters
