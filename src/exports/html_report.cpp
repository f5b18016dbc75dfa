#include "exports/html_report.h"

#include <fmt/format.h>

#include "exports/html_tables.h"
#include "reports/json_layout.h"
#include "rtrace/version.h"

namespace rtrace::exporters {

extern const std::string_view kHtmlViewsScript;   // html_views.js, generated
extern const std::string_view kHtmlReportScript;  // html_report.js, generated
extern const std::string_view kHtmlReportStyle;   // html_report.css, generated

namespace {

// JSON inside <script>: "<" only occurs inside strings there, where \u003c means the same, so
// no name in the trace can close the element ("</script>") or open a comment.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_html_report(const HtmlReportInput& input) {
  // One member a line; the timelines and the flame graph, most of the page's data, compact.
  std::string json = R"({"generator":)" + reports::Json(kOrigin).dump() + ",";
  json += report_tables_json(input.data, input.diff, input.tables);
  json += ",\n\"timelines\":";
  input.profile.append_timelines_json(json);
  json += ",\n\"flame\":";
  input.profile.append_flame_json(json, input.data, input.min_share);
  json += '}';
  const std::string title =
      fmt::format("rtrace report: {}", input.data.process.empty() ? "trace" : input.data.process);
  std::string page = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>\n",
      xml_escape(title));
  page += kHtmlReportStyle;
  page +=
      "</style>\n</head>\n<body>\n"
      "<noscript>This report draws its charts and tables with JavaScript.</noscript>\n"
      "<main id=\"report\"></main>\n"
      "<script type=\"application/json\" id=\"report-data\">\n";
  page += script_safe(json);
  // One script: the views first, then the page that draws them.
  page += "\n</script>\n<script>\n";
  page += kHtmlViewsScript;
  page += kHtmlReportScript;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace rtrace::exporters
