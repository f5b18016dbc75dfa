#include "recorder/raw_trace_handler.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string_view>
#include <vector>

#include "io/output_stream.h"
#include "pipeline/completeness_check.h"
#include "recorder/packet_stream.h"
#include "recorder/pid_sniffer.h"

namespace rtrace::recorder {

bool RawTraceHandler::record(int fd, std::uint32_t peer_pid) {
  try {
    OutputStream out = OutputStream::in_directory(directory_);
    PidSniffer sniffer;
    PacketStream packets(strip_extensions_);
    std::vector<std::uint8_t> buffer(std::size_t{1} << 16);
    std::string kept;
    std::uint64_t total = 0;
    while (const std::size_t n = read_some(fd, buffer.data(), buffer.size())) {
      const std::span<const std::uint8_t> bytes(buffer.data(), n);
      sniffer.feed(bytes);
      kept.clear();
      packets.feed(bytes, kept);
      out.write(kept);
      total += n;
      progress_.advance(n);
    }
    // A process that connected and wrote nothing (it died at once) leaves no file.
    if (total == 0) {
      return true;
    }
    const std::uint32_t pid = sniffer.pid().value_or(peer_pid);
    const std::string path = out.commit_numbered(fmt::format("{}-", pid), ".rtrace");
    if (!quiet_) {
      progress_.interrupt();
      fmt::print(stderr, "rtrace: created {}\n", path);
    }
    if (packets.broke_off()) {
      // Not quiet: a trace that looks whole and is not must never go unnoticed.
      progress_.interrupt();
      fmt::print(stderr, "rtrace: {}: warning: {}\n", path, kIncompleteTrace);
      return false;
    }
    return true;
  } catch (const std::exception& error) {
    progress_.interrupt();
    fmt::print(stderr, "rtrace: trace of process {} lost: {}\n", peer_pid, error.what());
    drain(fd);
    return false;
  }
}

}  // namespace rtrace::recorder
