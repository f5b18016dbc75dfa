// `rtrace process --to text|binary|compact` and back: any format, detected by content, written in
// each format rtrace writes, then read back. What rtrace writes it must read: a read-back that
// fails, or (for a trace of one process) one that holds another number of calls than the trace
// had, is a finding (abort), as is anything the other targets count as one.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "formats/format_registry.h"
#include "fuzz/fuzz_input.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"
#include "io/output_stream.h"

namespace {

using rtrace::CallRecord;
using rtrace::TraceSink;

class SilentDiagnostics final : public rtrace::Diagnostics {
 protected:
  void report(std::string_view, std::uint64_t, std::string_view) override {}
};

// Passes everything on, counting the calls and the processes they belong to.
class CallCount final : public rtrace::ForwardingSink {
 public:
  explicit CallCount(TraceSink& next) : ForwardingSink(next) {}
  void call(const CallRecord& record) override {
    ++calls;
    const std::uint32_t pid = record.call.pid;
    if (pid != 0 && first_pid == 0) {
      first_pid = pid;
    }
    several_processes = several_processes || (pid != 0 && pid != first_pid);
    ForwardingSink::call(record);
  }
  std::uint64_t calls = 0;
  std::uint32_t first_pid = 0;
  bool several_processes = false;
};

// A private folder for the written traces, made once (mkdtemp) and reused by every input.
const std::string& scratch_folder() {
  static const std::string folder = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rtrace-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::abort();
    }
    return pattern;
  }();
  return folder;
}

// Writes `bytes` (read by content) in `format` to a file; returns the trace's call count and
// whether it held one process only, or nothing when the input is no trace.
struct Written {
  std::uint64_t calls = 0;
  bool one_process = true;
};
std::optional<Written> write_as(std::span<const std::uint8_t> bytes, const char* format,
                                const std::string& path) {
  SilentDiagnostics diagnostics;
  const rtrace::TraceFormatInfo* info = rtrace::find_format(format);
  rtrace::OutputStream out(path, {});
  const std::unique_ptr<TraceSink> writer = info->open_writer(out, rtrace::ExportOptions{});
  CallCount count(*writer);
  try {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::fuzz::open_fuzz_input(bytes);
    rtrace::read_trace(*input, count, diagnostics);
  } catch (const rtrace::InputError&) {
    if (count.calls == 0) {
      return std::nullopt;  // refused before any call (no trace), or only damage
    }
  }
  out.commit();
  return Written{count.calls, !count.several_processes};
}

// Reads the written file back: it must read, and hold the calls written.
void read_back(const std::string& path, const Written& written) {
  SilentDiagnostics diagnostics;
  rtrace::DiscardingSink discard;
  CallCount count(discard);
  try {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::open_input(path);
    rtrace::read_trace(*input, count, diagnostics);
  } catch (const rtrace::InputError&) {
    std::abort();  // rtrace refused what it wrote
  }
  if (written.one_process && count.calls != written.calls) {
    std::abort();  // a call lost or made up on the way
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const char* format : {"text", "binary", "compact"}) {
    const std::string path = scratch_folder() + "/" + format;
    if (const std::optional<Written> written = write_as({data, size}, format, path)) {
      read_back(path, *written);
    }
  }
  return 0;
}
