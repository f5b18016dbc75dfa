// The report's side of the leak check (rtrace record --leak-check): each classified block that
// is still live when the trace's LEAK_KINDS records arrive is kept with its kind, size and site,
// and counted by kind once the sites' suppressions are known, as valgrind's LEAK SUMMARY counts.
#include <algorithm>
#include <array>
#include <map>

#include "reports/report_builder.h"

namespace rtrace::reports {

void ReportBuilder::leak_kinds(const LeakKinds& kinds) {
  if (!kinded_blocks_) {
    kinded_blocks_.emplace();
  }
  if (data_.pid != 0 && kinds.pid != 0 && kinds.pid != data_.pid) {
    return;  // another process's (the report is about the first)
  }
  for (const BlockKind& block : kinds.blocks) {
    const LiveBlock* live = live_.find({.id = block.resource_id, .type = memory_type_});
    if (live != nullptr) {
      kinded_blocks_->push_back({.kind = block.kind, .size = live->size, .site = live->site});
    }
  }
}

void ReportBuilder::finish_leak_kinds() {
  if (!kinded_blocks_) {
    return;
  }
  LeakKindTotals totals;
  // By kind, then by site.
  std::array<std::map<std::size_t, LeakKindTotals::Count>, 5> by_site;
  for (const KindedBlock& block : *kinded_blocks_) {
    const bool suppressed = block.site < data_.sites.size() && data_.sites[block.site].suppressed;
    const auto kind = static_cast<std::size_t>(block.kind);
    for (LeakKindTotals::Count* count : {suppressed ? &totals.suppressed : &totals.kinds[kind],
                                         suppressed ? nullptr : &by_site[kind][block.site]}) {
      if (count != nullptr) {
        ++count->blocks;
        count->bytes += block.size;
      }
    }
  }
  for (std::size_t kind = 0; kind < by_site.size(); ++kind) {
    for (const auto& [site, count] : by_site[kind]) {
      totals.sites[kind].push_back({.site = site, .count = count});
    }
    // Most bytes first; equal bytes in the order the sites first allocated.
    std::ranges::stable_sort(totals.sites[kind], [](const auto& a, const auto& b) {
      return a.count.bytes > b.count.bytes;
    });
  }
  data_.leak_kinds = std::move(totals);
  kinded_blocks_.reset();
}

}  // namespace rtrace::reports
