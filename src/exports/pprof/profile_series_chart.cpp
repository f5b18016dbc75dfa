#include "exports/pprof/profile_series_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "formats/format_registry.h"
#include "io/input_stream.h"
#include "io/json_string.h"
#include "pprof/profile.pb.h"
#include "reports/human_units.h"

namespace rtrace::exporters {
namespace {

namespace fs = std::filesystem;
namespace proto = perftools::profiles;

// The most a profile may hold once gunzipped: its sites, never its calls, make it.
constexpr std::size_t kMostProfileBytes = std::size_t{1} << 28;

// A profile is small: read whole, gunzipped as every input is. A file that does not start as a
// Profile message (its first field the sample types) or starts as a trace format is not read on.
std::optional<proto::Profile> read_profile(const std::string& path) {
  try {
    const std::unique_ptr<InputStream> input = open_input(path);
    const std::span<const std::uint8_t> head = input->peek(kDetectBytes);
    constexpr std::uint8_t kSampleTypeTag = 0x0a;  // field 1, length-delimited
    if (head.empty() || head[0] != kSampleTypeTag || detect_format(head) != nullptr) {
      return std::nullopt;
    }
    std::string bytes;
    constexpr std::size_t kChunk = 4096;
    while (!input->at_end()) {
      const std::span<const std::uint8_t> chunk = input->peek(kChunk);
      bytes.append(reinterpret_cast<const char*>(chunk.data()), chunk.size());
      input->consume(chunk.size());
      if (bytes.size() > kMostProfileBytes) {
        return std::nullopt;
      }
    }
    proto::Profile profile;
    if (!profile.ParseFromString(bytes) || profile.sample_type_size() == 0 ||
        profile.string_table_size() == 0 || !profile.string_table(0).empty()) {
      return std::nullopt;
    }
    return profile;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string text_of(const proto::Profile& profile, std::int64_t index) {
  return index >= 0 && index < profile.string_table_size()
             ? profile.string_table(static_cast<int>(index))
             : std::string();
}

std::string bar(std::uint64_t value, std::uint64_t most) {
  constexpr std::uint64_t kWidth = 40;
  const std::uint64_t length = most == 0 ? 0 : (value * kWidth + most / 2) / most;
  std::string text;
  for (std::uint64_t i = 0; i < length; ++i) {
    text += "\u2588";  // a full block
  }
  return text;
}

}  // namespace

bool is_pprof_profile(const std::string& path) {
  return read_profile(path).has_value();
}

std::vector<std::string> take_pprof_profiles(const std::vector<std::string>& paths,
                                             std::vector<std::string>& rest) {
  std::vector<std::string> profiles;
  for (const std::string& path : paths) {
    std::error_code error;
    if (path != "-" && fs::is_directory(path, error)) {
      std::vector<std::string> found;
      bool others = false;
      for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
        if (!entry.is_regular_file(error)) {
          continue;
        }
        if (is_pprof_profile(entry.path().string())) {
          found.push_back(entry.path().string());
        } else {
          others = true;
        }
      }
      std::ranges::sort(found);
      profiles.insert(profiles.end(), found.begin(), found.end());
      if (others || found.empty()) {
        rest.push_back(path);
      }
    } else if (path != "-" && is_pprof_profile(path)) {
      profiles.push_back(path);
    } else {
      rest.push_back(path);
    }
  }
  return profiles;
}

std::vector<SeriesPoint> read_profile_series(const std::vector<std::string>& paths) {
  std::vector<SeriesPoint> points;
  for (const std::string& path : paths) {
    const std::optional<proto::Profile> profile = read_profile(path);
    if (!profile) {
      throw std::runtime_error(path + ": not a pprof profile");
    }
    SeriesPoint point{.path = path,
                      .start_ns = profile->time_nanos(),
                      .end_ns = profile->time_nanos() + profile->duration_nanos()};
    for (int column = 0; column < profile->sample_type_size(); ++column) {
      const std::string type = text_of(*profile, profile->sample_type(column).type());
      std::uint64_t total = 0;
      for (const proto::Sample& sample : profile->sample()) {
        if (column < sample.value_size()) {
          total += static_cast<std::uint64_t>(std::max<std::int64_t>(sample.value(column), 0));
        }
      }
      if (type == "inuse_space") {
        point.inuse_bytes = total;
      } else if (type == "inuse_objects") {
        point.inuse_objects = total;
      } else if (type == "alloc_space") {
        point.alloc_bytes = total;
      } else if (type == "alloc_objects") {
        point.alloc_objects = total;
      }
    }
    points.push_back(std::move(point));
  }
  return points;
}

std::string series_chart_text(const std::vector<SeriesPoint>& points) {
  std::string out = fmt::format("rtrace report: in use over {} profile(s)\n", points.size());
  if (points.empty()) {
    return out;
  }
  const std::int64_t start = std::ranges::min(points, {}, &SeriesPoint::start_ns).start_ns;
  const std::uint64_t most = std::ranges::max(points, {}, &SeriesPoint::inuse_bytes).inuse_bytes;
  fmt::format_to(std::back_inserter(out), "{:>10}  {:>10}  {:>9}  {:>10}\n", "time", "in use",
                 "blocks", "allocated");
  for (const SeriesPoint& point : points) {
    fmt::format_to(std::back_inserter(out), "{:>10}  {:>10}  {:>9}  {:>10}  {}\n",
                   reports::human_duration(static_cast<std::uint64_t>(point.end_ns - start)),
                   reports::human_bytes(point.inuse_bytes), point.inuse_objects,
                   reports::human_bytes(point.alloc_bytes), bar(point.inuse_bytes, most));
  }
  return out;
}

std::string series_chart_json(const std::vector<SeriesPoint>& points) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const SeriesPoint& point : points) {
    profiles.push_back({{"file", point.path},
                        {"start_ns", point.start_ns},
                        {"end_ns", point.end_ns},
                        {"inuse_space", point.inuse_bytes},
                        {"inuse_objects", point.inuse_objects},
                        {"alloc_space", point.alloc_bytes},
                        {"alloc_objects", point.alloc_objects}});
  }
  return nlohmann::json{{"profiles", profiles}}.dump() + "\n";
}

}  // namespace rtrace::exporters
