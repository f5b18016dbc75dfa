#include "recorder/raw_trace_handler.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "pipeline/completeness_check.h"
#include "protocol/file_from_recorder.h"
#include "protocol/sprtrace_packets.h"
#include "recorder/packet_stream.h"
#include "recorder/pid_sniffer.h"
#include "recorder/space_reserve.h"
#include "recorder/trace_file_passing.h"

namespace rtrace::recorder {
namespace {

std::uint64_t file_size(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw std::runtime_error(std::string("a trace file: ") + std::strerror(errno));
  }
  return static_cast<std::uint64_t>(st.st_size);
}

// Reads the start of a trace file the process wrote into `sniffer` and `packets`: its pid and
// whether it has RCMD, both near the start (at most the sniffer's limit is read).
void read_head(int fd, std::uint64_t size, PidSniffer& sniffer, PacketStream& packets) {
  std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
  std::string ignored;
  const std::uint64_t limit = std::min<std::uint64_t>(size, PidSniffer::kGiveUpAfter);
  for (std::uint64_t at = 0; at < limit;) {
    if (sniffer.pid() && packets.has_command_line()) {
      return;
    }
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), limit - at));
    const ssize_t n = ::pread(fd, buffer.data(), want, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    const std::span<const std::uint8_t> bytes(buffer.data(), static_cast<std::size_t>(n));
    sniffer.feed(bytes);
    ignored.clear();
    packets.feed(bytes, ignored);
    at += static_cast<std::uint64_t>(n);
  }
}

// "rtrace: trace FILE, 3.4 MiB": what the recorder knows without reading the trace again.
std::string trace_summary(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return fmt::format("rtrace: trace {}", path);
  }
  return fmt::format("rtrace: trace {}, {}", path, progress_bytes(static_cast<double>(st.st_size)));
}

}  // namespace

bool RawTraceHandler::record(int fd, std::uint32_t peer_pid) {
  const TerminalWriters::Receiving receiving(terminal_writers_, peer_pid);
  if (receiving.writes()) {
    progress_.interrupt();  // before the process writes its next line; not redrawn meanwhile
  }
  // A tracer that asks for its file says so first; any other first byte is its stream's (an
  // older tracer's, which does not know the option).
  std::uint8_t first = 0;
  try {
    if (read_some(fd, &first, 1) == 0) {
      return true;  // the process is gone before it wrote anything: no file, as below
    }
  } catch (const std::exception& error) {
    fmt::print(stderr, "rtrace: trace of process {} lost: {}\n", peer_pid, error.what());
    return false;
  }
  // The name the file gets: asked now, while a process that wants its file waits for it (later it
  // may be gone, and a zombie has no command line).
  const std::string argv0 = argv0_of(peer_pid).value_or("");
  if (first != static_cast<std::uint8_t>(file_from_recorder::kAskForFile)) {
    return record_copied(fd, peer_pid, argv0, {&first, 1});
  }
  std::optional<OutputStream> out;
  try {
    if (!strip_extensions_) {
      out.emplace(OutputStream::in_directory(names_.directory()));
    }
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): record_copied says it
  }
  // Kept aside before the process may write.
  std::optional<SpaceReserve> reserve;
  if (out) {
    reserve.emplace(names_.directory(), file_from_recorder::kOutOfSpaceReserve);
  }
  if (!send_trace_file(fd, out ? out->fd() : -1)) {
    return true;  // gone before it wrote anything
  }
  return out ? record_passed(fd, peer_pid, argv0, *out, *reserve)
             : record_copied(fd, peer_pid, argv0, {});
}

bool RawTraceHandler::record_passed(int fd, std::uint32_t peer_pid, const std::string& argv0,
                                    OutputStream& out, SpaceReserve& reserve) {
  try {
    std::uint64_t shown = 0;
    const std::function<void()> show_progress = [&] {
      const std::uint64_t size = file_size(out.fd());
      progress_.advance(size > shown ? size - shown : 0);
      shown = std::max(shown, size);
    };
    const auto out_of_space = [&] {
      reserve.release();
      progress_.interrupt();
      // Not quiet, and at once: the program runs on, untraced from now on.
      fmt::print(stderr,
                 "rtrace: trace of process {}: no space left on device in {}: the trace ends here; "
                 "the program runs on untraced\n",
                 peer_pid, names_.directory());
    };
    const TraceClose said = wait_for_trace_close(
        fd, out_of_space,
        Progress::shown_on_stderr(quiet_) ? show_progress : std::function<void()>());
    const std::uint64_t size = file_size(out.fd());
    progress_.advance(size > shown ? size - shown : 0);
    if (size == 0) {
      return true;  // the temporary is removed with `out`
    }
    PidSniffer sniffer;
    PacketStream packets(false);
    read_head(out.fd(), size, sniffer, packets);
    // Only rtrace's tracer asks for its file, and it says when it closed the trace in order:
    // without that word the trace broke off, in whatever format it is written.
    return commit(out, sniffer.pid().value_or(peer_pid), sniffer.name().value_or(argv0),
                  {.broke_off = !said.closed, .out_of_space = said.out_of_space});
  } catch (const std::exception& error) {
    progress_.interrupt();
    fmt::print(stderr, "rtrace: trace of process {} lost: {}\n", peer_pid, error.what());
    drain(fd);
    return false;
  }
}

bool RawTraceHandler::record_copied(int fd, std::uint32_t peer_pid, const std::string& argv0,
                                    std::span<const std::uint8_t> read_already) {
  try {
    OutputStream out = OutputStream::in_directory(names_.directory());
    std::optional<StreamTap> tap;
    if (observer_) {
      tap.emplace(*observer_, peer_pid);
    }
    PidSniffer sniffer;
    PacketStream packets(strip_extensions_);
    std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
    std::copy(read_already.begin(), read_already.end(), buffer.begin());
    std::string kept;
    std::uint64_t total = 0;
    std::size_t held = read_already.size();
    std::string write_error;
    while (const std::size_t n = held + read_some(fd, buffer.data() + held, buffer.size() - held)) {
      held = 0;
      const std::span<const std::uint8_t> bytes(buffer.data(), n);
      sniffer.feed(bytes);
      kept.clear();
      packets.feed(bytes, kept);
      if (tap) {
        tap->feed(bytes);
      }
      total += n;
      progress_.advance(n);
      if (!write_error.empty()) {
        continue;  // read on, so that the process never blocks on its trace
      }
      try {
        out.write(kept);
      } catch (const std::exception& error) {
        // What was written stays (the readers read it up to the damage); said now, not quietly.
        write_error = error.what();
        progress_.interrupt();
        fmt::print(stderr,
                   "rtrace: trace of process {}: {}: the trace ends here; the program runs on "
                   "untraced\n",
                   peer_pid, write_error);
      }
    }
    if (tap) {
      tap->close();  // its last output (the profile at the end) before the trace's
    }
    // A process that connected and wrote nothing (it died at once) leaves no file.
    if (total == 0) {
      return true;
    }
    return commit(out, sniffer.pid().value_or(peer_pid), sniffer.name().value_or(argv0),
                  {.broke_off = packets.broke_off() || !write_error.empty(),
                   .capped_sizes = packets.capped_sizes(),
                   .write_error = write_error});
  } catch (const std::exception& error) {
    progress_.interrupt();
    fmt::print(stderr, "rtrace: trace of process {} lost: {}\n", peer_pid, error.what());
    drain(fd);
    return false;
  }
}

bool RawTraceHandler::commit(OutputStream& out, std::uint32_t pid, const std::string& argv0,
                             Damage damage) {
  const std::string path = commit_trace(out, names_.name(argv0, pid));
  if (!quiet_) {
    progress_.interrupt();
    fmt::print(stderr, "{}\n", trace_summary(path));
  }
  if (damage.capped_sizes > 0) {
    // Not quiet either: the file holds sizes other than the program's.
    progress_.interrupt();
    fmt::print(stderr,
               "rtrace: {}: warning: {} call(s) of 4 GiB or more recorded with size {}: the "
               "sp-rtrace protocol's sizes have 32 bits\n",
               path, damage.capped_sizes, sprtrace::kCappedCallSize);
  }
  // Not quiet: a trace that looks whole and is not must never go unnoticed.
  if (damage.out_of_space) {
    progress_.interrupt();
    fmt::print(stderr, "rtrace: {}: warning: {}\n", path,
               damage.broke_off ? "trace incomplete: no space was left on the device, not even "
                                  "for the trace's end"
                                : "trace cut short: no space was left on the device (the "
                                  "trace's end says so)");
    return false;
  }
  if (!damage.write_error.empty()) {
    progress_.interrupt();
    fmt::print(stderr,
               "rtrace: {}: warning: trace incomplete: writing it failed ({}); what was "
               "written before is kept\n",
               path, damage.write_error);
    return false;
  }
  if (damage.broke_off) {
    progress_.interrupt();
    fmt::print(stderr, "rtrace: {}: warning: {}\n", path, kIncompleteTrace);
    return false;
  }
  return true;
}

}  // namespace rtrace::recorder
