// Where `rtrace process` writes when its input holds several processes (a StackTrack file, a
// merged trace): one trace per process, each through its own stages and writer (-l, -c work per
// process), opened as PidSplit meets the process.
//
// Into a directory (-o DIR) each trace becomes `<pid>-<n><suffix>`, as single traces are named.
// Into one stream (standard output or -o FILE) the traces follow one another, each with its own
// header, in order of first appearance: the first streams straight through; the others are
// spilled to files in a private mkdtemp directory and appended at the end, so memory never holds
// a trace. A single-process input is written exactly as before.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli/process_command.h"
#include "exports/export_registry.h"
#include "io/output_stream.h"
#include "pipeline/pipeline.h"

namespace rtrace::cli {

class PerProcessOutputs {
 public:
  // `stream` is the output for the traces when not writing into `directory` (then empty).
  PerProcessOutputs(const ProcessOptions& options, ExportInfo format, OutputStream* stream,
                    std::string directory);
  PerProcessOutputs(const PerProcessOutputs&) = delete;
  PerProcessOutputs& operator=(const PerProcessOutputs&) = delete;
  ~PerProcessOutputs();

  // The head of a new process's stages (PidSplit::OpenBranch).
  TraceSink& open(std::uint32_t pid);

  // After the input: names the files in the directory (returning their paths), or appends the
  // spilled traces to the stream and commits it.
  std::vector<std::string> commit();

  // What the traces held that the output format cannot (Loss bits; formats/loss_witness.h).
  std::uint32_t lost() const { return lost_; }

 private:
  struct Branch {
    std::uint32_t pid = 0;
    std::unique_ptr<OutputStream> own;  // null when writing straight to the stream
    std::string spill;                  // path of the spilled trace, if spilled
    std::unique_ptr<TraceSink> writer;
    std::unique_ptr<TraceSink> witness;  // in front of the writer
    std::unique_ptr<Pipeline> stages;
  };

  std::string spill_path(std::uint32_t pid);
  void append_spilled(const std::string& path);

  const ProcessOptions& options_;
  ExportInfo format_;
  OutputStream* stream_;
  std::string directory_;
  std::string spill_directory_;  // made on first need
  std::uint32_t losses_;         // the output format's (none for an export that is no format)
  std::uint32_t lost_ = 0;
  std::vector<Branch> branches_;
};

}  // namespace rtrace::cli
