#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <utility>

#include "formats/sprtrace_binary/leaks_scan/piece_order.h"
#include "formats/sprtrace_binary/leaks_scan/two_halves.h"
#include "io/mapped_file.h"

namespace rtrace {
namespace {

using leaks_scan::HalfScan;
using leaks_scan::Join;
using leaks_scan::PacketWalker;
using leaks_scan::SecondHalf;

// The first half's walk to where the second half starts, and the join; true when the whole file
// was scanned (joined, or the first half went on alone to the end).
bool scan_with_second_half(HalfScan& first, SecondHalf& second, bool& joined,
                           std::uint64_t& calls_before) {
  const PacketWalker::Walk walk = first.walker.walk_to(second.start_offset());
  const Join join = walk == PacketWalker::Walk::GaveUp ? Join::GiveUp
                    : walk == PacketWalker::Walk::Done ? second.join_into(first, calls_before)
                                                       : Join::GoOnAlone;
  joined = join == Join::Joined;
  if (join == Join::GoOnAlone) {
    second.stop();
    return first.walker.walk_to(first.walker.file().size) == PacketWalker::Walk::Done;
  }
  return joined;
}

// The packets kept, the surviving allocations (whole, with their ARGS and BTRC) and the routing
// calls that are not survivors, in file order. The second half's calls (`second` when joined,
// after `calls_before` calls of the first) were sorted on its thread.
LeaksScan result(HalfScan& first, SecondHalf* second, std::uint64_t calls_before) {
  leaks_scan::KeptPieces& kept = first.walker.kept();
  LeaksScan scan{.file_size = first.walker.offset(),
                 .pieces = std::move(kept.pieces),
                 .second_half = second != nullptr ? second->start_offset() : 0};
  std::vector<LeaksScanPiece> calls = std::move(kept.routing_calls);
  first.table.add_survivors(calls);
  std::sort(calls.begin(), calls.end(), leaks_scan::by_offset);
  if (second != nullptr) {
    scan.pieces.insert(scan.pieces.end(), second->pieces().begin(), second->pieces().end());
    for (LeaksScanPiece& piece : second->calls()) {
      piece.call_index += calls_before;
    }
    // Only the second half's first call can be in both (a routing call the join added).
    const auto middle = static_cast<std::ptrdiff_t>(calls.size());
    calls.insert(calls.end(), second->calls().begin(), second->calls().end());
    std::inplace_merge(calls.begin(), calls.begin() + middle, calls.end(), leaks_scan::by_offset);
  }
  leaks_scan::drop_repeated(calls);
  std::vector<LeaksScanPiece> merged;
  merged.reserve(scan.pieces.size() + calls.size());
  std::merge(scan.pieces.begin(), scan.pieces.end(), calls.begin(), calls.end(),
             std::back_inserter(merged),
             [](const LeaksScanPiece& a, const LeaksScanPiece& b) { return a.offset < b.offset; });
  scan.pieces = std::move(merged);
  return scan;
}

// What the other threads threw (out of memory for a live table) is thrown here, as if the scan
// ran on one thread: the tool reports it instead of reading the trace again.
std::optional<LeaksScan> scan(MappedFile& mapped, std::uint64_t max_kept_bytes, Progress* progress,
                              const LeaksScanSplit& split) {
  HalfScan first(mapped, max_kept_bytes, progress);
  bool scanned = first.walker.read_handshake();
  const std::unique_ptr<SecondHalf> second = scanned ? SecondHalf::start(first, split) : nullptr;
  // With two halves, each applies its own batches: the first half's table is then joined on
  // its thread.
  first.walker.start_worker(second == nullptr);
  bool joined = false;
  std::uint64_t calls_before = 0;
  if (second != nullptr) {
    scanned = scan_with_second_half(first, *second, joined, calls_before);
  } else if (scanned) {
    scanned = first.walker.walk_to(mapped.size()) == PacketWalker::Walk::Done;
  }
  scanned = scanned && first.walker.flush();
  first.walker.finish_worker();
  // A file cut short at any time during the scan (a fault noted, or its size now) is the
  // general path's to report.
  if (!scanned || mapped.readable(0, mapped.size()) < mapped.size()) {
    return std::nullopt;
  }
  return result(first, joined ? second.get() : nullptr, calls_before);
}

}  // namespace

std::optional<LeaksScan> scan_binary_leaks(MappedFile& mapped, std::uint64_t max_kept_bytes,
                                           Progress* progress, const LeaksScanSplit& split) {
  std::optional<LeaksScan> found = scan(mapped, max_kept_bytes, progress, split);
  if (found) {
    std::uint64_t kept = 0;
    for (const LeaksScanPiece& piece : found->pieces) {
      kept += piece.length;
    }
    if (kept > max_kept_bytes) {
      return std::nullopt;
    }
  }
  return found;
}

}  // namespace rtrace
