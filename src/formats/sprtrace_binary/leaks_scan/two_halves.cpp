#include "formats/sprtrace_binary/leaks_scan/two_halves.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "formats/sprtrace_binary/leaks_scan/piece_order.h"
#include "io/mapped_file.h"
#include "protocol/byte_loads.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace::leaks_scan {
namespace {

using sprtrace::load_u32;
using sprtrace::PacketType;

// A guess of the bytes of a trace per distinct key released (the second half's table of them;
// the bench trace, bench/process-common.sh, has one per ~570 bytes).
constexpr std::uint64_t kBytesPerRelease = 512;

constexpr std::uint32_t type_of(PacketType type) {
  return static_cast<std::uint32_t>(type);
}

// Whether the load average (1 minute) is below `cpus` + 2: on 2 CPUs the split was measured
// faster at loads of 1.8-3.9 and slower at 3.6-4.6 beside a 2-thread stress test. The load
// counts this process too when it runs back to back, as in a benchmark.
bool not_overloaded(int cpus) {
  double load = 0;
  return ::getloadavg(&load, 1) == 1 && load < cpus + 2;
}

// How many CPUs this process may run on (its affinity mask): with one, two halves would only
// take turns on it.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

// Whether the packets from `at` to the first call register no refcounted resource type (one
// registered after a call makes the scan give up anyway). Walks them as the walker will.
bool prefix_allows_split(const VouchedFile& file, std::uint64_t at) {
  const std::uint8_t* bytes = file.bytes;
  while (true) {
    const sprtrace::PacketFrame frame =
        sprtrace::parse_packet({bytes + at, file.size - at}, kScanLayout, at, kMaxPacket);
    if (frame.status != sprtrace::ParseStatus::Complete) {
      return false;  // no call before the end, a second trace or a size the walk gives up on
    }
    if (frame.type == type_of(PacketType::FunctionCall)) {
      return true;
    }
    if (frame.type == type_of(PacketType::ResourceRegistry) && frame.data_size >= 8) {
      ResourceType resource;
      resource.flags = load_u32(bytes + at + 12, false);
      if (resource.refcounted()) {
        return false;
      }
    }
    at += frame.total;
  }
}

// Whether the bytes at `at` read as a few packets of known types, each within the file.
bool plausible_packets(const VouchedFile& file, std::uint64_t at) {
  constexpr int kPackets = 16;
  for (int i = 0; i < kPackets && at != file.size; ++i) {
    const sprtrace::PacketFrame frame =
        sprtrace::parse_packet({file.bytes + at, file.size - at}, kScanLayout, at, kMaxPacket);
    if (frame.status != sprtrace::ParseStatus::Complete ||
        !sprtrace::is_known_packet_type(frame.type)) {
      return false;
    }
    at += frame.total;
  }
  return true;
}

// The first position from `from` on (within 1 MiB) where a CALL packet seems to start, or the
// file's size. Only a guess: the first half's walk must land on it.
std::uint64_t find_second_half(const VouchedFile& file, std::uint64_t from) {
  constexpr std::uint64_t kSearch = std::uint64_t{1} << 20;
  const std::uint64_t size = file.size;
  const std::uint64_t end = size - std::min(size, from) > kSearch ? from + kSearch : size;
  for (std::uint64_t at = from; at < end && size - at >= sprtrace::kPacketHeaderSize; ++at) {
    if (load_u32(file.bytes + at, false) == type_of(PacketType::FunctionCall) &&
        plausible_packets(file, at)) {
      return at;
    }
  }
  return size;
}

}  // namespace

std::unique_ptr<SecondHalf> SecondHalf::start(const HalfScan& first, const LeaksScanSplit& split) {
  const VouchedFile& file = first.walker.file();
  const std::uint64_t after_handshake = first.walker.offset();
  const int cpus = usable_cpus();
  if (file.size < split.min_file_size || cpus < split.min_cpus ||
      (split.gate_on_load && !not_overloaded(cpus)) ||
      !prefix_allows_split(file, after_handshake) ||
      file.mapped.readable(0, file.size) < file.size) {
    return nullptr;
  }
  const std::uint64_t start = find_second_half(
      file, std::max(after_handshake, split.search_from.value_or(file.size / 2 + file.size / 30)));
  if (start == file.size) {
    return nullptr;
  }
  auto half = std::make_unique<SecondHalf>(first, start);
  try {
    half->thread_ = std::thread([&half = *half] {
      try {
        half.scanned_ = half.scan();
      } catch (...) {
        half.error_ = std::current_exception();
      }
    });
  } catch (const std::system_error&) {
    return nullptr;  // out of threads: one scan, as for a small file
  }
  return half;
}

SecondHalf::SecondHalf(const HalfScan& first, std::uint64_t start)
    : start_(start), scan_(first, start, stop_) {}

SecondHalf::~SecondHalf() {
  stop();
  if (thread_.joinable()) {
    thread_.join();
  }
}

// On the second half's thread: its packets to the end of the file, its batches applied here.
bool SecondHalf::scan() {
  PacketWalker& walker = scan_.walker;
  // Keys released: about one per kBytesPerRelease bytes of the half (a guess: fewer cost
  // 16 bytes of table each, more a growth or two).
  scan_.table.expect_released(
      static_cast<std::size_t>((walker.file().size - start_) / kBytesPerRelease));
  walker.start_worker(false);
  const bool scanned =
      walker.walk_to(walker.file().size) == PacketWalker::Walk::Done && walker.flush();
  walker.finish_worker();
  if (scanned) {
    // Its calls for the second pass, ready while the first half may still be scanning: they
    // are final (the first half changes nothing in the second half's table).
    std::vector<LeaksScanPiece>& routing = walker.kept().routing_calls;
    first_kept_for_routing_ = !routing.empty() && routing.front().offset == start_;
    calls_ = std::move(routing);
    scan_.table.add_survivors(calls_);
    sort_calls(calls_);
  }
  return scanned;
}

// Its first call is a routing call when the call before it or a PINF just before it says so;
// its process is the one the first half ended in (it met no PINF).
Join SecondHalf::join_into(HalfScan& first, std::uint64_t& calls_before) {
  thread_.join();
  if (error_) {
    std::rethrow_exception(error_);
  }
  const PacketWalker& second = scan_.walker;
  if (second.abandoned() || first.table.any_refcounted()) {
    return Join::GoOnAlone;
  }
  // The first half's last call ends where the second half starts (a CALL packet).
  if (!scanned_ || !first.walker.flush()) {
    return Join::GiveUp;
  }
  first.walker.route_first_call_of(second, first_kept_for_routing_);
  if (!second.routing().processes.empty()) {
    const std::optional<std::uint32_t> process = first.walker.current_process();
    if (!process) {
      return Join::GiveUp;
    }
    // What the second half did first to a key it found no block of: release the first half's.
    first.table.release_unseen_of(scan_.table, *process);
  }
  calls_before = first.walker.calls();
  return first.walker.take_over(second) ? Join::Joined : Join::GiveUp;
}

}  // namespace rtrace::leaks_scan
