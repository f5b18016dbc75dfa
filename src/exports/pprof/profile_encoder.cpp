#include "exports/pprof/profile_encoder.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "exports/pprof/gzip_bytes.h"
#include "pprof/profile.pb.h"

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

// A frame known only by a name rtrace gives it ("[no backtrace]", "0x1234 in libc.so.6").
SourcePosition position_named(std::string name) {
  SourcePosition position;
  position.function = std::move(name);
  return position;
}

}  // namespace

SampleColumns heap_columns(const reports::ResourceUnit& unit) {
  const auto allocated_count = [](std::size_t, const Site& site) { return site.allocations; };
  const auto allocated_bytes = [](std::size_t, const Site& site) { return site.bytes_allocated; };
  const auto live_count = [](std::size_t, const Site& site) { return site.live_blocks; };
  const auto live_bytes = [](std::size_t, const Site& site) { return site.live_bytes; };
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

// One profile being built: its message and the tables that keep each string, location and
// function once in it.
class ProfileBuild {
 public:
  explicit ProfileBuild(PprofEncoder& encoder)
      : encoder_(encoder), trace_(encoder.profile_), strings_(profile_) {}

  std::string encode(const TypeProfile* type, const SampleColumns& sample,
                     const ProfileHeader& header) {
    describe(sample, header);
    add_mappings();
    const std::vector<Site>& sites = trace_.sites();
    for (std::size_t index = 0; index < sites.size(); ++index) {
      if (type != nullptr && sites[index].type == effective_resource_type(type->type.id)) {
        add_sample(index, sites[index], sample);
      }
    }
    mark_symbolized_mappings();
    std::string bytes;
    profile_.SerializeToString(&bytes);
    return gzip_bytes(bytes);
  }

 private:
  void describe(const SampleColumns& sample, const ProfileHeader& header) {
    for (const SampleColumns::Column& column : sample.columns) {
      proto::ValueType* value_type = profile_.add_sample_type();
      value_type->set_type(strings_.index(column.type));
      value_type->set_unit(strings_.index(column.unit));
    }
    profile_.set_default_sample_type(strings_.index(sample.default_type));
    for (const std::string& comment : header.comments) {
      profile_.add_comment(strings_.index(comment));
    }
    if (header.time_nanos) {
      profile_.set_time_nanos(*header.time_nanos);
    }
    profile_.set_duration_nanos(header.duration_nanos);
  }

  const std::optional<ElfIdentity>& identity_of(const std::string& path) {
    const auto [found, added] = encoder_.identities_.try_emplace(path);
    if (added) {
      found->second = read_elf_identity(encoder_.root_ + path);
    }
    return found->second;
  }

  // One profile mapping per distinct (start, limit, file) of the trace, in the trace's order: the
  // main program's comes first, as pprof expects of mapping[0].
  void add_mappings() {
    std::map<std::tuple<Address, Address, std::string>, std::uint64_t> seen;
    for (const Mapping& mapping : trace_.mappings()) {
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
        if (const std::optional<ElfIdentity>& identity = identity_of(mapping.path)) {
          entry->set_file_offset(identity->code_offset);
          entry->set_build_id(strings_.index(identity->build_id));
        }
      }
    }
  }

  // The profile mapping holding `address`: the latest of the trace's mappings that holds it.
  std::uint64_t mapping_of(Address address) const {
    const std::vector<Mapping>& all = trace_.mappings();
    for (std::size_t i = all.size(); i-- > 0;) {
      if (address >= all[i].from && address < all[i].to) {
        return mapping_ids_[i];
      }
    }
    return 0;
  }

  void add_sample(std::size_t index, const Site& site, const SampleColumns& sample) {
    bool any = false;
    for (const SampleColumns::Column& column : sample.columns) {
      any = any || column.value(index, site) != 0;
    }
    if (!any) {
      return;  // allocated before the range and released before its end
    }
    proto::Sample* entry = profile_.add_sample();
    for (const Frame& frame : trace_.frames(site)) {  // innermost first, as pprof wants them
      entry->add_location_id(location_of(frame));
    }
    if (trace_.frames(site).empty()) {
      entry->add_location_id(named_location("[no backtrace]"));
    }
    for (const SampleColumns::Column& column : sample.columns) {
      entry->add_value(static_cast<std::int64_t>(column.value(index, site)));
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
    const Symbol* symbol = trace_.symbol_of(frame);
    if (symbol != nullptr && !symbol->where.function.empty()) {
      add_line(*location, symbol->where);
      for (const SourcePosition& caller : symbol->inlined_by) {
        add_line(*location, caller);
      }
    } else if (location->mapping_id() == 0) {
      // Nothing to look the address up in later: name it as the other exports do.
      add_line(*location, position_named(trace_.frame_name(frame)));
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

  PprofEncoder& encoder_;
  const AllocationProfile& trace_;
  proto::Profile profile_;
  ProfileStrings strings_;
  std::vector<std::uint64_t> mapping_ids_;  // per trace mapping, its profile mapping
  std::map<std::pair<Address, SymbolId>, std::uint64_t> locations_;
  std::map<std::tuple<std::string, std::string, std::string>, std::uint64_t> functions_;
};

std::string PprofEncoder::encode(const TypeProfile* type, const SampleColumns& sample,
                                 const ProfileHeader& header) {
  return ProfileBuild(*this).encode(type, sample, header);
}

}  // namespace rtrace::exporters
