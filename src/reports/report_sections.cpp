#include "reports/report_sections.h"

#include <algorithm>
#include <tuple>

#include "filters/live_resources.h"
#include "reports/frame_text.h"
#include "reports/resource_unit.h"

namespace rtrace::reports {
namespace {

template <typename Key, typename Wanted>
std::vector<const SiteStats*> select(const ReportData& data, std::size_t top, Key key,
                                     Wanted wanted) {
  std::vector<const SiteStats*> sites;
  for (const SiteStats& site : data.sites) {
    if (wanted(site)) {
      sites.push_back(&site);
    }
  }
  // Largest first; equal keys in order of first allocation, so the output is stable.
  std::ranges::stable_sort(
      sites, [&](const SiteStats* a, const SiteStats* b) { return key(*a) > key(*b); });
  if (sites.size() > top) {
    sites.resize(top);
  }
  return sites;
}

// The sites of types of transfers (resource_unit.h), which hold nothing: no leaks, nothing
// temporary. The types are looked up once, not once per site.
class TransferSites {
 public:
  explicit TransferSites(const ReportData& data) {
    for (const TypeTotals& t : data.types) {
      if (resource_unit(t).transfers) {
        types_.push_back(effective_resource_type(t.type.id));
      }
    }
  }
  bool contains(const SiteStats& site) const { return of_type(site.type); }
  bool of_type(std::uint32_t type) const { return std::ranges::find(types_, type) != types_.end(); }

 private:
  std::vector<std::uint32_t> types_;
};

}  // namespace

std::vector<const SiteStats*> leak_sites(const ReportData& data, std::size_t top) {
  return select(
      data, top, [](const SiteStats& s) { return std::tuple(s.leaked_bytes, s.leaked_blocks); },
      [transfers = TransferSites(data)](const SiteStats& s) {
        return s.leaked_blocks > 0 && !s.suppressed && !transfers.contains(s);
      });
}

std::vector<const SiteStats*> allocating_sites(const ReportData& data, std::size_t top) {
  return select(
      data, top, [](const SiteStats& s) { return std::tuple(s.allocations, s.bytes_allocated); },
      [](const SiteStats& s) { return s.allocations > 0; });
}

std::vector<const SiteStats*> peak_sites(const ReportData& data, std::uint32_t type,
                                         std::size_t top) {
  if (TransferSites(data).of_type(type)) {
    return {};
  }
  std::vector<const SiteStats*> sites = select(
      data, data.sites.size(), [](const SiteStats& s) { return s.peak_bytes; },
      [](const SiteStats& s) { return s.peak_bytes > 0; });
  std::erase_if(sites, [type](const SiteStats* s) { return s->type != type; });
  if (sites.size() > top) {
    sites.resize(top);
  }
  return sites;
}

std::vector<const SiteStats*> temporary_sites(const ReportData& data, std::size_t top) {
  return select(
      data, top, [](const SiteStats& s) { return s.temporary; },
      [transfers = TransferSites(data)](const SiteStats& s) {
        return s.temporary > 0 && !transfers.contains(s);
      });
}

std::string shown_name(std::string_view name, const RenderOptions& options) {
  return options.short_templates ? shorten_templates(name) : std::string(name);
}

std::string site_type_name(const ReportData& data, const SiteStats& site) {
  for (const TypeTotals& t : data.types) {
    if (t.type.id == site.type || (site.type == 1 && t.type.id == 0)) {
      return t.type.type;
    }
  }
  return {};
}

std::uint64_t bucket_low(std::size_t bucket) {
  return bucket == 0 ? 0 : std::uint64_t{1} << (bucket - 1);
}

std::uint64_t bucket_high(std::size_t bucket) {
  if (bucket == 0) {
    return 0;
  }
  if (bucket == 64) {
    return ~std::uint64_t{0};
  }
  return (std::uint64_t{1} << bucket) - 1;
}

}  // namespace rtrace::reports
