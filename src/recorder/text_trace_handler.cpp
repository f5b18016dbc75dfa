#include "recorder/text_trace_handler.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include "io/byte_source.h"

namespace rtrace::recorder {

bool TextTraceHandler::record(int fd, std::uint32_t peer_pid) {
  bool complete = false;
  try {
    const std::unique_ptr<InputStream> input = open_input(
        std::make_unique<FdSource>(fd, false), fmt::format("<trace of process {}>", peer_pid));
    // A process that connected and wrote nothing (it died at once) leaves no output.
    if (input->at_end()) {
      return true;
    }
    if (names_) {
      // The process is asked its name now, while it is likely alive; its trace's PINF wins.
      const TracedIdentity peer{peer_pid, argv0_of(peer_pid).value_or("")};
      complete = record_to_file(*input, peer);
    } else {
      complete = record_to_stdout(*input, peer_pid);
    }
  } catch (const std::exception& error) {
    fmt::print(stderr, "rtrace: trace of process {} lost: {}\n", peer_pid, error.what());
  }
  drain(fd);
  return complete;
}

TracedIdentity TextTraceHandler::convert(InputStream& input, OutputStream& out,
                                         const TracedIdentity& peer, bool& complete) {
  StderrDiagnostics diagnostics(quiet_);
  try {
    TracedIdentity process = convert_(input, out, diagnostics);
    complete = true;
    if (process.pid == 0) {
      process.pid = peer.pid;
    }
    if (process.name.empty()) {
      process.name = peer.name;
    }
    return process;
  } catch (const InputError& error) {
    fmt::print(stderr, "rtrace: {}\n", error.what());
    complete = false;
    return peer;
  }
}

bool TextTraceHandler::record_to_file(InputStream& input, const TracedIdentity& peer) {
  OutputStream out = OutputStream::in_directory(names_->directory());
  bool complete = false;
  const TracedIdentity process = convert(input, out, peer, complete);
  const std::string path = commit_trace(out, names_->name(process.name, process.pid));
  if (!quiet_) {
    fmt::print(stderr, "rtrace: created {}\n", path);
  }
  return complete;
}

bool TextTraceHandler::record_to_stdout(InputStream& input, std::uint32_t peer_pid) {
  bool complete = false;
  if (std::unique_lock<std::mutex> turn(stdout_mutex_, std::try_to_lock); turn.owns_lock()) {
    OutputStream out;
    convert(input, out, {peer_pid, ""}, complete);
    out.flush();
    return complete;
  }
  OutputStream spool = OutputStream::in_directory(spool_directory_);
  convert(input, spool, {peer_pid, ""}, complete);
  const std::string path = spool.commit_numbered("spool-", ".txt");
  try {
    copy_to_stdout(path);
  } catch (...) {
    ::unlink(path.c_str());
    throw;
  }
  ::unlink(path.c_str());
  return complete;
}

void TextTraceHandler::copy_to_stdout(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(path + ": cannot be read back");
  }
  FdSource source(fd, true);
  const std::lock_guard<std::mutex> turn(stdout_mutex_);
  OutputStream out;
  std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
  while (const std::size_t n = source.read(buffer)) {
    out.write(std::string_view(reinterpret_cast<const char*>(buffer.data()), n));
  }
  out.flush();
}

}  // namespace rtrace::recorder
