// `rtrace report` over a series of pprof heap profiles (rtrace record --profile-every, or any
// profiler's files of one process): the in-use memory of each profile over time, as a table with
// a bar each, or as JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rtrace::exporters {

// Whether `path` is a pprof profile: gzipped (or not) profile.proto with sample types. Known by
// content, as every input.
bool is_pprof_profile(const std::string& path);

// The pprof profiles among `paths`: a file that is one, and those of a directory, sorted by
// name. The other paths are left in `rest` (a directory only when it holds other files too).
std::vector<std::string> take_pprof_profiles(const std::vector<std::string>& paths,
                                             std::vector<std::string>& rest);

// One profile of the series: its end, and its totals of the heap sample types (0 for a type it
// does not have).
struct SeriesPoint {
  std::string path;
  std::int64_t start_ns = 0;  // time_nanos (wall clock)
  std::int64_t end_ns = 0;    // time_nanos + duration_nanos
  std::uint64_t inuse_bytes = 0;
  std::uint64_t inuse_objects = 0;
  std::uint64_t alloc_bytes = 0;
  std::uint64_t alloc_objects = 0;
};

// Reads every profile. Throws std::runtime_error naming a file that is not a readable profile.
std::vector<SeriesPoint> read_profile_series(const std::vector<std::string>& paths);

// The chart as text: one line per profile, its end since the first profile's start, in-use
// bytes and objects, bytes allocated in its interval, and a bar of the in-use bytes.
std::string series_chart_text(const std::vector<SeriesPoint>& points);
// The same as JSON: {"profiles": [{"file", "end_ns", "inuse_space", ...}, ...]}.
std::string series_chart_json(const std::vector<SeriesPoint>& points);

}  // namespace rtrace::exporters
