// The pprof encoder the pprof export and the periodic profiles of `rtrace record
// --profile-every` share: the sites of one resource type of an AllocationProfile, as a gzipped
// profile.proto with the sample types heap profilers use.
//
// Every distinct frame is a location: on a mapping of the trace (with the module's build-id and
// file offset, read from the module file, so that pprof can name the addresses of an unresolved
// trace against the binaries), with the function, file and line where the trace is resolved, and
// the calls that inlined it as pprof's further lines of the location.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exports/allocation_profile.h"
#include "exports/pprof/elf_identity.h"
#include "reports/resource_unit.h"

namespace rtrace::exporters {

// What the samples of one resource type count, in the profile's order. A column's value is
// given the site's index in AllocationProfile::sites() and the site.
struct SampleColumns {
  struct Column {
    std::string type;
    std::string unit;
    std::function<std::uint64_t(std::size_t index, const Site& site)> value;
  };
  std::vector<Column> columns;
  std::string default_type;
};

// Memory (the report's "block", sized in bytes) takes the heap profilers' names,
// alloc_objects/alloc_space/inuse_objects/inuse_space; other types count their own noun
// ("alloc_descriptors") and weigh bytes only when their sizes are bytes; transfers are never
// held, so they have no in-use columns. The alloc columns count the sites' allocations, the inuse
// ones what is alive.
SampleColumns heap_columns(const reports::ResourceUnit& unit);

// What a profile says besides its samples.
struct ProfileHeader {
  std::vector<std::string> comments;
  std::optional<std::int64_t> time_nanos;  // when it starts (wall clock); none: not said
  std::int64_t duration_nanos = 0;
};

class PprofEncoder {
 public:
  // `root`: the sysroot the modules' files are read under (their build-ids and offsets).
  PprofEncoder(const AllocationProfile& profile, std::string root)
      : profile_(profile), root_(std::move(root)) {}

  // The profile of the sites of `type` (none: no samples), gzipped. A site whose every column
  // is 0 is left out.
  std::string encode(const TypeProfile* type, const SampleColumns& sample,
                     const ProfileHeader& header);

 private:
  const AllocationProfile& profile_;
  std::string root_;
  // Each module file read once, however many profiles are encoded.
  std::map<std::string, std::optional<ElfIdentity>> identities_;

  friend class ProfileBuild;
};

}  // namespace rtrace::exporters
