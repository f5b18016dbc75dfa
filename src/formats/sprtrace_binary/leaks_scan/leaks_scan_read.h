// The sp-rtrace binary format's scan mode for `rtrace process -l` (its entry's scan_leaks in the
// format table): a first pass (leaks_scan.h) finds the allocations still alive at the end reading
// only what decides it; the second decodes only the file's other packets and those calls, with
// the ordinary reader and through the ordinary stages, so the output is the general path's byte
// for byte.
//
// The second pass reads the stretches the scan kept, joined in memory (at most kMaxKeptBytes),
// with the calls' true indices and the warnings' true byte offsets put back. Whenever the scan
// does not apply (standard input or a pipe, a compressed file, damage anywhere, a file changed
// between the passes) nothing has been written and the caller reads the trace the general way,
// which reports it as before.
#pragma once

#include <cstdint>
#include <memory>

#include "formats/format_registry.h"
#include "io/input_stream.h"

namespace rtrace {

inline constexpr std::uint64_t kMaxKeptBytes = std::uint64_t{64} << 20;

// The first pass over the mapped file that `trace` reads (the same mapping, not read by `trace`
// meanwhile) and the copying of what it kept; null when the general path must read `trace` (also
// when it is no mapped file: standard input, a pipe, a compressed file). With `show_progress`,
// the first pass draws the general path's progress line ("reading PATH").
std::unique_ptr<LeaksScanRead> scan_sprtrace_binary_leaks(const InputStream& trace,
                                                          bool show_progress);

}  // namespace rtrace
