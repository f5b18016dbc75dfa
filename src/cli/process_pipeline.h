// The post-processing stages that `rtrace process` / `sp-rtrace-postproc` put between the reader
// and the writer, built from the original post-processor's options.
#pragma once

#include <memory>
#include <stdexcept>
#include <vector>

#include "cli/process_command.h"
#include "io/diagnostics.h"
#include "pipeline/trace_sink.h"

namespace rtrace::cli {

// A filter option that cannot be honoured (bad value, bad combination); exit status 2.
class FilterOptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The stage chain, in the order the original applies its options: context (-C), resource (-R),
// --include / --exclude, --call-address, depth (-b), -a, leaks (-l), compress and sort (-c, -s),
// resolve (-r), then the writer. Throws FilterOptionError; reads --include / --exclude files up
// front.
class FilterPipeline {
 public:
  FilterPipeline(const ProcessOptions& options, TraceSink& writer);
  FilterPipeline(const FilterPipeline&) = delete;
  FilterPipeline& operator=(const FilterPipeline&) = delete;

  // Where the reader pushes records.
  TraceSink& head() { return *head_; }

 private:
  template <typename Stage, typename... Args>
  void prepend(Args&&... args);

  std::vector<std::unique_ptr<TraceSink>> stages_;  // the head last
  TraceSink* head_;
};

// Checks the options without building anything (for a clear error before reading input).
void check_filter_options(const ProcessOptions& options);

}  // namespace rtrace::cli
