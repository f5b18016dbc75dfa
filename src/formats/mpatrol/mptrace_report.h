// The output of mpatrol's `mptrace` tool (1.5.1, version string 1.4), with its two decoding bugs
// fixed (values of 2^31 and more; LEB128 numbers across its buffer boundary): the statistics, the
// --verbose event table with --source lines, the HATF file (--hatf-file) and the C simulation
// program (--sim-file). A visitor of the mpatrol decoder.
#pragma once

#include <cstdint>
#include <string>

#include "formats/mpatrol/allocation_table.h"
#include "formats/mpatrol/mpatrol_event.h"
#include "formats/mpatrol/sim_slots.h"
#include "formats/mpatrol/text_columns.h"
#include "io/diagnostics.h"
#include "io/output_stream.h"

namespace rtrace::mpatrol {

struct MptraceOptions {
  bool verbose = false;  // the event table
  bool source = false;   // with --verbose: thread, function, file and line under each event
  std::string tool_name = "rtrace mptrace";  // where mptrace names itself (argv[0])
  std::string trace_name;                    // the trace as named on the command line
  std::string hatf_name;                     // the HATF file as named on the command line
};

// mptrace's running totals.
struct MptraceStatistics {
  std::uint64_t alloc_count = 0;  // A and R records
  std::uint64_t alloc_bytes = 0;
  std::uint64_t free_count = 0;  // F and R records
  std::uint64_t free_bytes = 0;
  std::uint64_t reserve_count = 0;  // H records
  std::uint64_t reserve_bytes = 0;
  std::uint64_t internal_count = 0;  // I records
  std::uint64_t internal_bytes = 0;
  std::uint64_t peak_count = 0;  // running maxima, separately
  std::uint64_t peak_bytes = 0;
  std::uint64_t smallest = 0;  // 0 = none yet
  std::uint64_t largest = 0;
};

class MptraceReport final : public Visitor {
 public:
  // `hatf` and `sim` are null when not asked for; they may be `out` itself (file name "stdout").
  // Inconsistent events (an unknown index, a second free) are warned about through
  // `diagnostics`, naming `input_name` and the record's offset, as mptrace does on stderr.
  MptraceReport(MptraceOptions options, OutputStream& out, OutputStream* hatf, OutputStream* sim,
                Diagnostics& diagnostics, std::string input_name);

  void header(const Header& header) override;
  void event(const Event& event) override;
  // Prints the statistics and completes the HATF and simulation files.
  void end(Ending ending) override;
  // For corrupt input: completes the HATF and simulation files (with the events before the
  // damage) but prints no statistics, as mptrace does.
  void abandon();

  const MptraceStatistics& statistics() const { return stats_; }

 private:
  void allocate(const Event& event);
  void reallocate(const Event& event);
  void release(const Event& event);
  void system_block(const Event& event);
  void count_allocation(std::uint64_t size);
  void row_start(Row& row, const char* type, std::uint64_t index, std::uint64_t address,
                 std::uint64_t size) const;
  void row_end(Row& row);
  void source_line(const Event& event);
  void print_statistics();
  void finish_side_files();
  void warn(const Event& event, std::string_view message) {
    diagnostics_.warning(input_name_, event.offset, message);
  }

  MptraceOptions options_;
  OutputStream& out_;
  OutputStream* hatf_;
  OutputStream* sim_;
  Diagnostics& diagnostics_;
  std::string input_name_;

  MptraceStatistics stats_;
  AllocationTable blocks_;
  SimSlots slots_;
  std::uint64_t sim_slots_used_ = 1;  // the array size of the simulation program (mptrace: >= 1)
  std::uint64_t current_event_ = 0;
  bool side_files_done_ = false;
};

}  // namespace rtrace::mpatrol
