// The leaks scan's split of a large file in two halves (LeaksScanSplit, leaks_scan.h), each
// walked and applied to a live table of its own on a thread of its own, and their join: the
// second half starts at a CALL packet; once the first half's walk lands there, the first takes
// over what the second found, its releases of blocks it never saw ending the first half's blocks.
// Whatever the join cannot take exactly leaves the rest of the file to the first half's thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"
#include "formats/sprtrace_binary/leaks_scan/live_calls.h"
#include "formats/sprtrace_binary/leaks_scan/packet_walker.h"

namespace rtrace::leaks_scan {

// One half's scan (or the whole file's): its live table and the walker that fills it.
struct HalfScan {
  HalfScan(MappedFile& mapped, std::uint64_t max_kept_bytes, Progress* progress)
      : table(false), walker(mapped, max_kept_bytes, progress, table) {}
  // The second half's, from `start`, until `stop` is set.
  HalfScan(const HalfScan& first, std::uint64_t start, const std::atomic<bool>& stop)
      : table(true), walker(first.walker, start, stop, table) {}

  LiveCalls table;
  PacketWalker walker;  // after the table: its worker stops before the table goes
};

// What the second half's scan gives the first: joined, or the rest of the file to scan alone,
// or the trace to the general path.
enum class Join { Joined, GoOnAlone, GiveUp };

// The second half's scan on a thread of its own; destroying it stops and joins the thread.
class SecondHalf {
 public:
  // Started when the file is large enough, the machine has a CPU to spare, no resource type is
  // refcounted (the halves' tables could not be joined), the whole file is still there (the
  // second half reads it without asking readable(): one thread asks, the first half's, and the
  // scan asks again at its end) and a CALL packet is found past the middle; null otherwise.
  static std::unique_ptr<SecondHalf> start(const HalfScan& first, const LeaksScanSplit& split);

  SecondHalf(const HalfScan& first, std::uint64_t start);
  SecondHalf(const SecondHalf&) = delete;
  SecondHalf& operator=(const SecondHalf&) = delete;
  ~SecondHalf();

  std::uint64_t start_offset() const { return start_; }
  // The first half goes on alone: the second's walk stops at its next look.
  void stop() { stop_.store(true, std::memory_order_relaxed); }

  // Once the first half's walk landed on start_offset(): joins the second half into `first`, as
  // the one-thread scan would have gone on. `calls_before` is then the number of calls
  // before the second half. What the second half's thread threw is thrown here.
  Join join_into(HalfScan& first, std::uint64_t& calls_before);

  // After the join: the second half's pieces, and its calls for the second pass in file order
  // (call indices counted from its start).
  std::vector<LeaksScanPiece>& pieces() { return scan_.walker.kept().pieces; }
  std::vector<LeaksScanPiece>& calls() { return calls_; }

 private:
  bool scan();

  std::atomic<bool> stop_{false};
  std::uint64_t start_;
  HalfScan scan_;
  bool scanned_ = false;  // written by the thread, read after join()
  std::exception_ptr error_;
  // Its routing calls and survivors, sorted on its thread; whether its first call was kept for
  // routing.
  std::vector<LeaksScanPiece> calls_;
  bool first_kept_for_routing_ = false;
  std::thread thread_;  // last: starts once the members it uses exist
};

}  // namespace rtrace::leaks_scan
