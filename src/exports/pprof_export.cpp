// pprof's profile.proto, gzipped: what `pprof`, `go tool pprof`, speedscope and the continuous
// profilers (Pyroscope, Parca, Grafana's profiles database) read. One resource type per profile
// (--type), with the sample types heap profilers use: for memory alloc_objects, alloc_space,
// inuse_objects and inuse_space (the default); for other types their own nouns ("descriptors")
// in place of "objects". "alloc" counts what was allocated in the range (--from/--to, the whole
// trace by default), "inuse" what is alive at its end, wherever it was allocated.
//
// Every distinct frame is a location: on a mapping of the trace (with the module's build-id and
// file offset, read from the module file, so that pprof can name the addresses of an unresolved
// trace against the binaries), with the function, file and line where the trace is resolved, and
// the calls that inlined it as pprof's further lines of the location.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "exports/allocation_profile.h"
#include "exports/pprof/elf_identity.h"
#include "exports/pprof/gzip_bytes.h"
#include "exports/stack_exports.h"
#include "pprof/profile.pb.h"
#include "reports/resource_unit.h"

namespace rtrace::exporters {
namespace {

namespace proto = perftools::profiles;

// The profile's string table: every text once, "" at index 0 as the format requires.
class ProfileStrings {
 public:
  explicit ProfileStrings(proto::Profile& profile) : profile_(profile) { index(""); }

  std::int64_t index(const std::string& text) {
    const auto [found, added] = indices_.try_emplace(text, profile_.string_table_size());
    if (added) {
      profile_.add_string_table(text);
    }
    return found->second;
  }

 private:
  proto::Profile& profile_;
  std::unordered_map<std::string, std::int64_t> indices_;
};

// What the samples of one resource type count, in the profile's order.
struct SampleColumns {
  struct Column {
    std::string type;
    std::string unit;
    std::uint64_t (*value)(const Site& site);
  };
  std::vector<Column> columns;
  std::string default_type;
};

std::uint64_t allocated_count(const Site& site) {
  return site.allocations;
}
std::uint64_t allocated_bytes(const Site& site) {
  return site.bytes_allocated;
}
std::uint64_t live_count(const Site& site) {
  return site.live_blocks;
}
std::uint64_t live_bytes(const Site& site) {
  return site.live_bytes;
}

// Memory (the report's "block", sized in bytes) takes the heap profilers' names; other types
// count their own noun ("alloc_descriptors") and weigh bytes only when their sizes are bytes;
// transfers are never held, so they have no in-use columns.
SampleColumns columns_for(const reports::ResourceUnit& unit) {
  if (unit.transfers) {
    return {.columns = {{"transfers", "count", allocated_count},
                        {"transferred_space", "bytes", allocated_bytes}},
            .default_type = "transferred_space"};
  }
  const std::string things = unit.noun == "block" ? "objects" : unit.noun + "s";
  SampleColumns sample;
  sample.columns.push_back({"alloc_" + things, "count", allocated_count});
  if (unit.sized) {
    sample.columns.push_back({"alloc_space", "bytes", allocated_bytes});
  }
  sample.columns.push_back({"inuse_" + things, "count", live_count});
  if (unit.sized) {
    sample.columns.push_back({"inuse_space", "bytes", live_bytes});
  }
  sample.default_type = unit.sized ? "inuse_space" : "inuse_" + things;
  return sample;
}

// A frame known only by a name rtrace gives it ("[no backtrace]", "0x1234 in libc.so.6").
SourcePosition position_named(std::string name) {
  SourcePosition position;
  position.function = std::move(name);
  return position;
}

class PprofExport final : public AllocationProfile {
 public:
  PprofExport(OutputStream& out, const ExportOptions& options)
      : out_(out),
        type_name_(options.resource_type),
        range_(options.range),
        selector_(options.range),
        root_(options.root),
        strings_(profile_) {}

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
    const SampleColumns sample = columns_for(unit_of(type));
    describe_profile(type, sample);
    add_mappings();
    for (const Site& site : sites()) {
      if (type != nullptr && site.type == effective_resource_type(type->type.id)) {
        add_sample(site, sample);
      }
    }
    mark_symbolized_mappings();
    std::string bytes;
    profile_.SerializeToString(&bytes);
    out_.write(gzip_bytes(bytes));
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

  void describe_profile(const TypeProfile* type, const SampleColumns& sample) {
    for (const SampleColumns::Column& column : sample.columns) {
      proto::ValueType* value_type = profile_.add_sample_type();
      value_type->set_type(strings_.index(column.type));
      value_type->set_unit(strings_.index(column.unit));
    }
    profile_.set_default_sample_type(strings_.index(sample.default_type));
    std::string comment = fmt::format(
        "rtrace export pprof: {} of {}", type == nullptr ? "nothing allocated" : type->type.type,
        process_name().empty() ? "an unnamed process" : process_name());
    if (!range_.whole()) {
      comment += ", " + range_.describe();
    }
    profile_.add_comment(strings_.index(comment));
    if (started_ && started_->seconds > 0) {
      profile_.set_time_nanos(started_->seconds * 1'000'000'000 +
                              static_cast<std::int64_t>(started_->microseconds) * 1'000);
    }
    profile_.set_duration_nanos(static_cast<std::int64_t>(last_inside_ns_ - first_inside_ns_));
  }

  // One profile mapping per distinct (start, limit, file) of the trace, in the trace's order: the
  // main program's comes first, as pprof expects of mapping[0].
  void add_mappings() {
    std::map<std::tuple<Address, Address, std::string>, std::uint64_t> seen;
    for (const Mapping& mapping : mappings()) {
      const auto [found, added] = seen.try_emplace(
          std::tuple(mapping.from, mapping.to, mapping.path), profile_.mapping_size() + 1);
      mapping_ids_.push_back(found->second);
      if (!added) {
        continue;
      }
      proto::Mapping* entry = profile_.add_mapping();
      entry->set_id(found->second);
      entry->set_memory_start(mapping.from);
      entry->set_memory_limit(mapping.to);
      entry->set_filename(strings_.index(mapping.path));
      if (mapping.path.starts_with('/')) {
        if (const std::optional<ElfIdentity> identity = read_elf_identity(root_ + mapping.path)) {
          entry->set_file_offset(identity->code_offset);
          entry->set_build_id(strings_.index(identity->build_id));
        }
      }
    }
  }

  // The profile mapping holding `address`: the latest of the trace's mappings that holds it.
  std::uint64_t mapping_of(Address address) const {
    const std::vector<Mapping>& all = mappings();
    for (std::size_t i = all.size(); i-- > 0;) {
      if (address >= all[i].from && address < all[i].to) {
        return mapping_ids_[i];
      }
    }
    return 0;
  }

  void add_sample(const Site& site, const SampleColumns& sample) {
    bool any = false;
    for (const SampleColumns::Column& column : sample.columns) {
      any = any || column.value(site) != 0;
    }
    if (!any) {
      return;  // allocated before the range and released before its end
    }
    proto::Sample* entry = profile_.add_sample();
    for (const Frame& frame : frames(site)) {  // innermost first, as pprof wants them
      entry->add_location_id(location_of(frame));
    }
    if (frames(site).empty()) {
      entry->add_location_id(named_location("[no backtrace]"));
    }
    for (const SampleColumns::Column& column : sample.columns) {
      entry->add_value(static_cast<std::int64_t>(column.value(site)));
    }
  }

  std::uint64_t location_of(const Frame& frame) {
    const auto [found, added] = locations_.try_emplace(std::pair(frame.address, frame.symbol), 0);
    if (!added) {
      return found->second;
    }
    proto::Location* location = profile_.add_location();
    found->second = static_cast<std::uint64_t>(profile_.location_size());
    location->set_id(found->second);
    if (frame.address != 0) {
      // A return address: one less lies on the call instruction, the line of the call, where
      // pprof's symbolizer (as rtrace's resolver) looks it up.
      location->set_address(frame.address - 1);
      location->set_mapping_id(mapping_of(frame.address - 1));
    }
    const Symbol* symbol = symbol_of(frame);
    if (symbol != nullptr && !symbol->where.function.empty()) {
      add_line(*location, symbol->where);
      for (const SourcePosition& caller : symbol->inlined_by) {
        add_line(*location, caller);
      }
    } else if (location->mapping_id() == 0) {
      // Nothing to look the address up in later: name it as the other exports do.
      add_line(*location, position_named(frame_name(frame)));
    }
    return found->second;
  }

  std::uint64_t named_location(const std::string& name) {
    proto::Location* location = profile_.add_location();
    location->set_id(static_cast<std::uint64_t>(profile_.location_size()));
    add_line(*location, position_named(name));
    return location->id();
  }

  void add_line(proto::Location& location, const SourcePosition& where) {
    proto::Line* line = location.add_line();
    line->set_function_id(function_of(where));
    line->set_line(where.line);
  }

  std::uint64_t function_of(const SourcePosition& where) {
    const auto [found, added] =
        functions_.try_emplace(std::tuple(where.function, where.parameters, where.file), 0);
    if (added) {
      proto::Function* function = profile_.add_function();
      found->second = static_cast<std::uint64_t>(profile_.function_size());
      function->set_id(found->second);
      function->set_name(strings_.index(where.function));
      function->set_system_name(strings_.index(where.qualified_name()));
      function->set_filename(strings_.index(where.file));
    }
    return found->second;
  }

  // A mapping whose every location is named (and has files and lines) says so, and pprof leaves
  // it alone; the others it symbolizes against the binary when it finds it.
  void mark_symbolized_mappings() {
    struct Coverage {
      bool used = false;
      bool functions = true;
      bool files = true;
      bool lines = true;
    };
    std::vector<Coverage> coverage(static_cast<std::size_t>(profile_.mapping_size()) + 1);
    for (const proto::Location& location : profile_.location()) {
      Coverage& of = coverage[location.mapping_id()];
      of.used = true;
      of.functions = of.functions && location.line_size() > 0;
      for (const proto::Line& line : location.line()) {
        const proto::Function& function =
            profile_.function(static_cast<int>(line.function_id() - 1));
        of.files = of.files && function.filename() != 0;
        of.lines = of.lines && line.line() != 0;
      }
    }
    for (proto::Mapping& mapping : *profile_.mutable_mapping()) {
      const Coverage& of = coverage[mapping.id()];
      const bool named = of.used && of.functions;
      mapping.set_has_functions(named);
      mapping.set_has_filenames(named && of.files);
      mapping.set_has_line_numbers(named && of.lines);
      mapping.set_has_inline_frames(named && of.lines);
    }
  }

  OutputStream& out_;
  std::string type_name_;
  CallRange range_;
  CallRangeSelector selector_;
  std::string root_;
  proto::Profile profile_;
  ProfileStrings strings_;
  std::optional<TimeOfDay> started_;
  std::uint64_t first_inside_ns_ = 0;
  std::uint64_t last_inside_ns_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> largest_allocation_;
  std::vector<std::uint64_t> mapping_ids_;  // per trace mapping, its profile mapping
  std::map<std::pair<Address, SymbolId>, std::uint64_t> locations_;
  std::map<std::tuple<std::string, std::string, std::string>, std::uint64_t> functions_;
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
