// What the report counts a resource type in, taken from what the trace says about the type, so
// that every type (memory, segments, attachments, mappings, descriptors, GL objects...) reads
// right without a list of every known type:
//  * the noun of one resource is the last word of the type's description, in the singular
//    ("shared memory segment": segment, "shared memory attachments": attachment; a trailing
//    "(...)" is left out), and "block" for a description that says its sizes are bytes ("memory
//    allocation in bytes"); a few types name their noun because their description does not end
//    in it: "fd" descriptor, "fp" (file pointer) stream, "gobject" (GObject instance) object;
//  * sizes are bytes for such a type, and for any type with an allocation bigger than 1; a type
//    whose allocations all have size 1 (descriptors, streams, GL objects: the original's
//    convention) is counted, never weighed;
//  * a type of transfers (the memtransfer module's copies: each an allocation of the destination
//    released at once, or in the original's traces never released) counts what moved: the
//    report gives it no peak, no leaks and no temporary allocations, only transfers and bytes.
#pragma once

#include <cstdint>
#include <string>

#include "reports/report_data.h"

namespace rtrace::reports {

struct ResourceUnit {
  std::string noun;        // one resource: "block", "segment", "descriptor", "transfer"
  bool sized = true;       // sizes are bytes worth printing
  bool transfers = false;  // each resource is a transfer, never held

  // "3 segment(s)".
  std::string count(std::uint64_t resources) const;
};

ResourceUnit resource_unit(const TypeTotals& totals);

// The unit of the type a site belongs to.
ResourceUnit site_unit(const ReportData& data, const SiteStats& site);

}  // namespace rtrace::reports
