// The periodic profiles of `rtrace record --profile-every INTERVAL -o DIR`: while the trace
// streams in, every INTERVAL of the trace's clock (and once more at its end) a pprof file of the
// live heap (inuse_objects, inuse_space) and of what was allocated since the previous profile
// (alloc_objects, alloc_space), as heap profilers write them, for a continuous profiler's agent
// to pick up.
//
// The files are DIR/NAME.PID.SEQ.pb.gz (NAME the program's, SEQ counting from 1 in six digits,
// so that a listing sorts them in time), each written under a temporary name and renamed into
// place when complete: an agent watching DIR never reads half a profile. A profile is written
// when the first call after the end of an interval arrives (the trace's clock moves with its
// calls), so a program that allocates nothing for a while gets its profile at its next call or
// at its end.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "exports/allocation_profile.h"
#include "exports/pprof/profile_encoder.h"

namespace rtrace::exporters {

class ProfileSeries final : public AllocationProfile {
 public:
  // `interval_ns` > 0; `directory` exists.
  ProfileSeries(std::uint64_t interval_ns, std::string directory, std::string root = {})
      : interval_ns_(interval_ns),
        directory_(std::move(directory)),
        encoder_(*this, std::move(root)) {}

  void process(const ProcessInfo& info) override;
  void call(const CallRecord& record) override;
  void finish() override;

  // The files written so far, in order.
  const std::vector<std::string>& written() const { return written_; }

 private:
  // Writes the profile of the interval ending at `end_ns` (the trace's clock).
  void write_profile(std::uint64_t end_ns);
  const TypeProfile* memory_type() const;

  std::uint64_t interval_ns_;
  std::string directory_;
  PprofEncoder encoder_;
  std::string name_;
  TimeOfDay started_{};
  std::uint64_t first_ns_ = 0;  // the trace's clock at its first timed call; 0: none yet
  std::uint64_t last_ns_ = 0;
  std::uint64_t next_end_ns_ = 0;       // the end of the current interval
  std::uint64_t profile_start_ns_ = 0;  // the start of the current interval
  // Each site's allocations and bytes at the previous profile, by its index in sites().
  std::vector<Site> at_previous_;
  std::unordered_map<std::uint32_t, std::uint64_t> largest_allocation_;
  std::vector<std::string> written_;
};

}  // namespace rtrace::exporters
