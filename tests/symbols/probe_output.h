// Runs one of the resolver's test programs and reads what it reports: its executable mappings
// and, for each probed call site, the return address and what a resolver must say about it.
#pragma once

#include <string>
#include <vector>

#include "model/records.h"
#include "symbol_view.h"

namespace rtrace::test {

struct ProbeFrame {
  Address address = 0;
  std::string function;  // innermost function, display form
  std::string location;  // "file.c:line" of the call
  std::vector<InlinedView> inlined_by;
};

struct ProbeOutput {
  std::vector<Mapping> maps;
  std::vector<ProbeFrame> frames;
  Address libc_frame = 0;  // a return address inside libc's qsort (into our comparator)
};

// Runs `program` with `arguments`; fails the calling test when it does not run cleanly.
ProbeOutput run_probe(const std::string& program, const std::string& arguments = "");

// The frame whose function is `function`; fails the calling test when there is none.
const ProbeFrame& frame_of(const ProbeOutput& output, const std::string& function);

}  // namespace rtrace::test
