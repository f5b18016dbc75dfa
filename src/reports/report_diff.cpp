#include "reports/report_diff.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "reports/frame_text.h"

namespace rtrace::reports {
namespace {

std::int64_t signed_value(std::uint64_t value) {
  return static_cast<std::int64_t>(value);
}

Growth operator-(const Growth& a, const Growth& b) {
  return {.allocations = a.allocations - b.allocations,
          .bytes_allocated = a.bytes_allocated - b.bytes_allocated,
          .leaked_blocks = a.leaked_blocks - b.leaked_blocks,
          .leaked_bytes = a.leaked_bytes - b.leaked_bytes,
          .peak_bytes = a.peak_bytes - b.peak_bytes};
}

Growth amounts(const TypeTotals& t) {
  return {.allocations = signed_value(t.allocations),
          .bytes_allocated = signed_value(t.bytes_allocated),
          .leaked_blocks = signed_value(t.leaked_blocks),
          .leaked_bytes = signed_value(t.leaked_bytes),
          .peak_bytes = signed_value(t.peak_bytes)};
}

Growth amounts(const SiteStats& s) {
  return {.allocations = signed_value(s.allocations),
          .bytes_allocated = signed_value(s.bytes_allocated),
          .leaked_blocks = signed_value(s.leaked_blocks),
          .leaked_bytes = signed_value(s.leaked_bytes),
          .peak_bytes = signed_value(s.peak_bytes)};
}

std::string type_name(const ReportData& data, std::uint32_t type) {
  for (const TypeTotals& t : data.types) {
    if (t.type.id == type || (type == 1 && t.type.id == 0)) {
      return t.type.type;
    }
  }
  return {};
}

using SiteKey = std::pair<std::string, std::vector<std::string>>;

// What identifies a backtrace in either trace: its resource type and each frame's identity
// across runs (module and offset, else resolved names; see frame_key).
SiteKey site_key(const ReportData& data, const SiteStats& site) {
  SiteKey key{type_name(data, site.type), {}};
  for (const FrameDetail* frame : data.frame_details(site)) {
    key.second.push_back(frame_key(*frame));
  }
  return key;
}

struct KeyedSite {
  Growth amounts;
  const SiteStats* first = nullptr;  // shown for the key
};

std::map<SiteKey, KeyedSite> sites_by_key(const ReportData& data) {
  std::map<SiteKey, KeyedSite> sites;
  for (const SiteStats& site : data.sites) {
    KeyedSite& keyed = sites[site_key(data, site)];
    if (keyed.first == nullptr) {
      keyed.first = &site;
    }
    Growth& g = keyed.amounts;
    const Growth a = amounts(site);
    g.allocations += a.allocations;
    g.bytes_allocated += a.bytes_allocated;
    g.leaked_blocks += a.leaked_blocks;
    g.leaked_bytes += a.leaked_bytes;
    g.peak_bytes += a.peak_bytes;
  }
  return sites;
}

}  // namespace

ReportDiff diff_reports(const ReportData& current, const ReportData& baseline) {
  ReportDiff diff;
  auto add_type = [&](const std::string& name) {
    if (std::ranges::any_of(diff.types, [&](const TypeGrowth& t) { return t.type == name; })) {
      return;
    }
    Growth now;
    Growth before;
    ResourceUnit unit{.noun = "", .sized = false};
    const auto take = [&](const TypeTotals& t, Growth& amount) {
      amount = amounts(t);
      const ResourceUnit side = resource_unit(t);
      unit.noun = unit.noun.empty() ? side.noun : unit.noun;
      unit.sized = unit.sized || side.sized;  // weighed in either trace: bytes
    };
    for (const TypeTotals& t : current.types) {
      if (t.type.type == name) {
        take(t, now);
      }
    }
    for (const TypeTotals& t : baseline.types) {
      if (t.type.type == name) {
        take(t, before);
      }
    }
    diff.types.push_back({name, now - before, unit});
  };
  for (const TypeTotals& t : current.types) {
    add_type(t.type.type);
  }
  for (const TypeTotals& t : baseline.types) {
    add_type(t.type.type);
  }

  const std::map<SiteKey, KeyedSite> before = sites_by_key(baseline);
  for (const auto& [key, now] : sites_by_key(current)) {
    const auto old = before.find(key);
    const Growth growth = old == before.end() ? now.amounts : now.amounts - old->second.amounts;
    if (growth.leaked_bytes > 0 || growth.bytes_allocated > 0 || growth.allocations > 0) {
      const FrameNames names = current.frame_names(*now.first);
      diff.sites.push_back({key.first, {names.begin(), names.end()}, growth, {}});
    }
  }
  for (SiteGrowth& site : diff.sites) {
    for (const TypeGrowth& type : diff.types) {
      if (type.type == site.type) {
        site.unit = type.unit;
      }
    }
  }
  std::ranges::stable_sort(diff.sites, [](const SiteGrowth& a, const SiteGrowth& b) {
    return std::tuple(a.growth.leaked_bytes, a.growth.bytes_allocated) >
           std::tuple(b.growth.leaked_bytes, b.growth.bytes_allocated);
  });
  return diff;
}

}  // namespace rtrace::reports
