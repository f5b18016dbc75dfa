#include "cli/per_process_outputs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "cli/process_stages.h"
#include "formats/format_registry.h"
#include "formats/loss_witness.h"
#include "rtrace/version.h"

namespace rtrace::cli {

PerProcessOutputs::PerProcessOutputs(const ProcessOptions& options, ExportInfo format,
                                     OutputStream* stream, std::string directory)
    : options_(options),
      format_(format),
      stream_(stream),
      directory_(std::move(directory)),
      losses_([&] {
        const TraceFormatInfo* written = find_format(format.name);
        return written != nullptr ? written->losses : kLosesNothing;
      }()) {}

PerProcessOutputs::~PerProcessOutputs() {
  std::vector<std::string> spilled;
  for (const Branch& branch : branches_) {
    if (!branch.spill.empty()) {
      spilled.push_back(branch.spill);
    }
  }
  branches_.clear();  // uncommitted streams remove their temporaries
  for (const std::string& path : spilled) {
    ::unlink(path.c_str());
  }
  if (!spill_directory_.empty()) {
    ::rmdir(spill_directory_.c_str());
  }
}

std::string PerProcessOutputs::spill_path(std::uint32_t pid) {
  if (spill_directory_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rtrace-process-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(fmt::format("{}: {}", pattern, std::strerror(errno)));
    }
    spill_directory_ = pattern;
  }
  return fmt::format("{}/{}", spill_directory_, pid);
}

TraceSink& PerProcessOutputs::open(std::uint32_t pid) {
  Branch& branch = branches_.emplace_back();
  branch.pid = pid;
  OutputStream* out = stream_;
  if (!directory_.empty()) {
    branch.own = std::make_unique<OutputStream>(OutputStream::in_directory(directory_));
    out = branch.own.get();
  } else if (branches_.size() > 1) {
    branch.spill = spill_path(pid);
    branch.own = std::make_unique<OutputStream>(branch.spill, std::vector<std::string>{});
    out = branch.own.get();
  }
  branch.writer = format_.open(*out, ExportOptions{.origin = std::string(kOrigin)});
  branch.witness = std::make_unique<LossWitness>(*branch.writer, losses_, lost_);
  branch.stages = std::make_unique<Pipeline>(process_stages(options_),
                                             process_stage_context(options_), *branch.witness);
  return branch.stages->head();
}

void PerProcessOutputs::append_spilled(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  std::array<char, 1 << 16> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    stream_->write({chunk.data(), static_cast<std::size_t>(in.gcount())});
  }
}

std::vector<std::string> PerProcessOutputs::commit() {
  std::vector<std::string> created;
  if (!directory_.empty()) {
    for (Branch& branch : branches_) {
      created.push_back(
          branch.own->commit_numbered(fmt::format("{}-", branch.pid), std::string(format_.suffix)));
    }
    return created;
  }
  for (Branch& branch : branches_) {
    if (branch.own) {
      branch.own->commit();
      append_spilled(branch.spill);
    }
  }
  stream_->commit();
  return created;
}

}  // namespace rtrace::cli
