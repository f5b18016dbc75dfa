#include "reports/report_data.h"

namespace rtrace::reports {

FrameNames ReportData::frame_names(const SiteStats& site) const {
  FrameNames names;
  tree->for_each_frame(site.node, [&](std::uint32_t frame) {
    names.emplace_back((*frame_descriptions)[frame].name);
  });
  return names;
}

std::vector<const FrameDetail*> ReportData::frame_details(const SiteStats& site) const {
  std::vector<const FrameDetail*> details;
  tree->for_each_frame(site.node, [&](std::uint32_t frame) {
    details.push_back(&(*frame_descriptions)[frame].detail);
  });
  return details;
}

}  // namespace rtrace::reports
