#include "cli/mptrace_command.h"

#include <exception>
#include <memory>
#include <stdexcept>

#include "cli/exit_status.h"
#include "formats/mpatrol/mpatrol_decoder.h"
#include "formats/mpatrol/mptrace_report.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"
#include "io/standard_stream.h"

namespace rtrace::cli {
namespace {

// A side file of mptrace: a named file, or standard output itself for "-" and mptrace's own name
// "stdout" (the one stream, so that the report and the side file never mix mid-line).
struct SideFile {
  std::unique_ptr<OutputStream> own;
  OutputStream* stream = nullptr;
};

SideFile open_side_file(const std::optional<std::string>& path, const std::string& trace,
                        OutputStream& out) {
  SideFile file;
  if (!path) {
    return file;
  }
  if (*path == "stdout" || names_standard_stream(*path)) {
    file.stream = &out;
    return file;
  }
  if (*path == "stderr") {
    throw std::runtime_error("writing a side file to standard error is not supported");
  }
  file.own = std::make_unique<OutputStream>(*path, std::vector<std::string>{trace});
  file.stream = file.own.get();
  return file;
}

int mptrace(const MptraceOptions& o) {
  StderrDiagnostics diagnostics(o.quiet);
  const std::unique_ptr<InputStream> input = open_input(o.trace);
  OutputStream out;
  SideFile hatf = open_side_file(o.hatf_file, o.trace, out);
  SideFile sim = open_side_file(o.sim_file, o.trace, out);

  mpatrol::MptraceOptions report_options{.verbose = o.verbose,
                                         .source = o.source,
                                         .trace_name = o.trace,
                                         .hatf_name = o.hatf_file.value_or("")};
  mpatrol::MptraceReport report(report_options, out, hatf.stream, sim.stream, diagnostics,
                                input->name());
  // Corrupt input: keep what was printed and written before the damage, then report it.
  std::exception_ptr damage;
  try {
    mpatrol::decode(*input, report, diagnostics);
  } catch (const InputError&) {
    report.abandon();
    damage = std::current_exception();
  }
  for (SideFile* file : {&hatf, &sim}) {
    if (file->own) {
      file->own->commit();
    }
  }
  out.commit();
  if (damage) {
    std::rethrow_exception(damage);
  }
  return o.strict && diagnostics.warning_count() > 0 ? 1 : 0;
}

}  // namespace

void add_mptrace_options(CLI::App& app, MptraceOptions& o) {
  app.add_option("trace", o.trace,
                 "mpatrol tracing file (default mpatrol.trace; - = standard input; gzip and zstd "
                 "are read transparently)")
      ->option_text("TRACE");
  app.add_flag("-v,--verbose", o.verbose, "Also display the event table");
  app.add_flag("--source", o.source,
               "With --verbose: show the thread, function, file and line of each event");
  app.add_option("-H,--hatf-file", o.hatf_file,
                 "Also write the trace in Heap Allocation Trace Format to FILE (- or stdout: "
                 "standard output)")
      ->option_text("FILE");
  app.add_option("-s,--sim-file", o.sim_file,
                 "Also write a trace-driven allocation simulation program in C to FILE (- or "
                 "stdout: standard output)")
      ->option_text("FILE");
  app.add_flag("--strict", o.strict,
               "Exit with status 1 when the trace was damaged or incomplete (no end marker)");
  app.add_flag("-q,--quiet", o.quiet, "Do not print warnings");
  app.footer(
      "Output as mpatrol 1.5.1's mptrace prints it, with its 64-bit decoding errors fixed; a\n"
      "trace without its end marker (a crashed program) is read to its last complete record.\n"
      "Exit status: 0 success, 1 unreadable or corrupt trace or a write error (with --strict\n"
      "also an incomplete trace), 2 bad options. See rtrace-mptrace(1).");
}

int run_mptrace(const MptraceOptions& options) {
  return run_reporting_errors([&] { return mptrace(options); });
}

std::function<int()> setup_mptrace(CLI::App& app) {
  auto options = std::make_shared<MptraceOptions>();
  add_mptrace_options(app, *options);
  return [options] { return run_mptrace(*options); };
}

}  // namespace rtrace::cli
