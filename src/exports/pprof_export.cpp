// pprof's profile.proto, gzipped: what `pprof`, `go tool pprof`, speedscope and the continuous
// profilers (Pyroscope, Parca, Grafana's profiles database) read. One resource type per profile
// (--type), with the sample types heap profilers use: for memory alloc_objects, alloc_space,
// inuse_objects and inuse_space (the default); for other types their own nouns ("descriptors")
// in place of "objects". "alloc" counts what was allocated in the range (--from/--to, the whole
// trace by default), "inuse" what is alive at its end, wherever it was allocated. The encoding
// is pprof/profile_encoder.h's.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/pprof/profile_encoder.h"
#include "exports/stack_exports.h"
#include "reports/resource_unit.h"

namespace rtrace::exporters {
namespace {

class PprofExport final : public AllocationProfile {
 public:
  PprofExport(OutputStream& out, const ExportOptions& options)
      : out_(out),
        type_name_(options.resource_type),
        range_(options.range),
        selector_(options.range),
        encoder_(*this, options.root) {}

  void process(const ProcessInfo& info) override {
    AllocationProfile::process(info);
    if (!started_) {
      started_ = info.start;
    }
  }

  void call(const CallRecord& record) override {
    if (record.call.kind == CallKind::Alloc) {
      // Over the whole trace, as the report decides whether a type's sizes are bytes.
      std::uint64_t& largest =
          largest_allocation_[effective_resource_type(record.call.resource_type)];
      largest = std::max(largest, record.call.size);
    }
    const RangePosition position = selector_.place(record.call);
    if (position == RangePosition::After) {
      return;  // what happens after the range changes nothing in it
    }
    const bool inside = position == RangePosition::Inside;
    count_allocations(inside);
    AllocationProfile::call(record);
    if (inside && record.call.timestamp_ns != 0) {
      first_inside_ns_ = first_inside_ns_ == 0 ? record.call.timestamp_ns : first_inside_ns_;
      last_inside_ns_ = record.call.timestamp_ns;
    }
  }

  void finish() override {
    settle();
    const TypeProfile* type = chosen_type(type_name_);
    if (type == nullptr && !types().empty()) {
      type = types().front();  // nothing allocates: an empty profile in the trace's own units
    }
    out_.write(encoder_.encode(type, heap_columns(unit_of(type)), profile_header(type)));
    out_.flush();
  }

 private:
  // How the report counts the type (none: memory).
  reports::ResourceUnit unit_of(const TypeProfile* type) const {
    reports::TypeTotals totals;
    if (type != nullptr) {
      totals.type = type->type;
      const auto largest = largest_allocation_.find(effective_resource_type(type->type.id));
      totals.largest_allocation = largest == largest_allocation_.end() ? 0 : largest->second;
    }
    return reports::resource_unit(totals);
  }

  ProfileHeader profile_header(const TypeProfile* type) const {
    ProfileHeader header;
    std::string comment = fmt::format(
        "rtrace export pprof: {} of {}", type == nullptr ? "nothing allocated" : type->type.type,
        process_name().empty() ? "an unnamed process" : process_name());
    if (!range_.whole()) {
      comment += ", " + range_.describe();
    }
    header.comments.push_back(std::move(comment));
    if (sample_interval() != 0 && type != nullptr && type->type.type == "memory") {
      header.comments.push_back(sampling_note(sample_interval()));
    }
    if (started_ && started_->seconds > 0) {
      header.time_nanos = started_->seconds * 1'000'000'000 +
                          static_cast<std::int64_t>(started_->microseconds) * 1'000;
    }
    header.duration_nanos = static_cast<std::int64_t>(last_inside_ns_ - first_inside_ns_);
    return header;
  }

  OutputStream& out_;
  std::string type_name_;
  CallRange range_;
  CallRangeSelector selector_;
  PprofEncoder encoder_;
  std::optional<TimeOfDay> started_;
  std::uint64_t first_inside_ns_ = 0;
  std::uint64_t last_inside_ns_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> largest_allocation_;
};

}  // namespace

ExportInfo pprof_export() {
  return {
      .name = "pprof",
      .description = "gzipped profile.proto for pprof, go tool pprof, continuous profilers",
      .suffix = ".pb.gz",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<PprofExport>(out, options);
      },
      .time_range = true};
}

}  // namespace rtrace::exporters
