#include "exports/pprof/profile_series.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/output_stream.h"
#include "reports/resource_unit.h"

namespace rtrace::exporters {

void ProfileSeries::process(const ProcessInfo& info) {
  AllocationProfile::process(info);
  if (name_.empty()) {
    const std::string_view program = info.name;
    const std::size_t slash = program.rfind('/');
    name_ = std::string(slash == std::string_view::npos ? program : program.substr(slash + 1));
    started_ = info.start;
  }
}

void ProfileSeries::call(const CallRecord& record) {
  if (record.call.timestamp_ns != 0) {
    if (first_ns_ == 0) {
      first_ns_ = record.call.timestamp_ns;
      profile_start_ns_ = first_ns_;
      next_end_ns_ = first_ns_ + interval_ns_;
    }
    // One profile per interval that ended before this call: the state then is the state now,
    // as nothing happened since the previous call.
    while (record.call.timestamp_ns >= next_end_ns_) {
      write_profile(next_end_ns_);
      next_end_ns_ += interval_ns_;
    }
    last_ns_ = std::max(last_ns_, record.call.timestamp_ns);
  }
  if (record.call.kind == CallKind::Alloc) {
    std::uint64_t& largest =
        largest_allocation_[effective_resource_type(record.call.resource_type)];
    largest = std::max(largest, record.call.size);
  }
  AllocationProfile::call(record);
}

void ProfileSeries::finish() {
  // The end: what is alive then is what the trace leaves (its leaks at exit).
  write_profile(std::max(last_ns_, profile_start_ns_));
}

const TypeProfile* ProfileSeries::memory_type() const {
  const std::vector<const TypeProfile*> all = types();
  const auto memory = std::ranges::find_if(
      all, [](const TypeProfile* type) { return type->type.type == "memory"; });
  return memory != all.end() ? *memory : all.empty() ? nullptr : all.front();
}

void ProfileSeries::write_profile(std::uint64_t end_ns) {
  const TypeProfile* type = memory_type();
  reports::TypeTotals totals;
  if (type != nullptr) {
    totals.type = type->type;
    const auto largest = largest_allocation_.find(effective_resource_type(type->type.id));
    totals.largest_allocation = largest == largest_allocation_.end() ? 0 : largest->second;
  }
  SampleColumns sample = heap_columns(reports::resource_unit(totals));
  // The alloc columns count what was allocated since the previous profile.
  const auto previous = [this](std::size_t index) {
    return index < at_previous_.size() ? at_previous_[index] : Site{};
  };
  for (SampleColumns::Column& column : sample.columns) {
    if (column.type.starts_with("alloc_") || column.type.starts_with("transfer")) {
      column.value = [value = column.value, previous](std::size_t index, const Site& site) {
        return value(index, site) - value(index, previous(index));
      };
    }
  }
  ProfileHeader header;
  header.comments.push_back(fmt::format("rtrace record --profile-every: {} of {}",
                                        type == nullptr ? "nothing allocated" : type->type.type,
                                        name_.empty() ? "an unnamed process" : name_));
  if (sample_interval() != 0) {
    header.comments.push_back(sampling_note(sample_interval()));
  }
  // The wall clock at the interval's start: the process's start plus the trace's clock since.
  if (started_.seconds > 0) {
    header.time_nanos = started_.seconds * 1'000'000'000 +
                        static_cast<std::int64_t>(started_.microseconds) * 1'000 +
                        static_cast<std::int64_t>(profile_start_ns_ - first_ns_);
  }
  header.duration_nanos = static_cast<std::int64_t>(end_ns - profile_start_ns_);

  OutputStream out = OutputStream::in_directory(directory_);
  out.write(encoder_.encode(type, sample, header));
  written_.push_back(out.commit_unique(
      fmt::format("{}.{}.{:06}", name_.empty() ? "process" : name_, pid(), written_.size() + 1),
      ".pb.gz"));
  at_previous_ = sites();
  profile_start_ns_ = end_ns;
}

}  // namespace rtrace::exporters
