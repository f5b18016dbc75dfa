#include "recorder/tracer_settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "protocol/tracer_options.h"

namespace rtrace::recorder {
namespace {

char flag(bool on) {
  return on ? '1' : '0';
}

}  // namespace

std::string format_tracer_options(const TracerSettings& s) {
  namespace key = tracer_options::key;
  if (s.depth > tracer_options::kMaxDepth) {
    throw std::invalid_argument(fmt::format("backtrace depth {} is more than the tracer takes ({})",
                                            s.depth, tracer_options::kMaxDepth));
  }
  std::string text = fmt::format(
      "{}={},{}={},{}={},{}={},{}={},{}={},{}={},{}={}", key::kDepth, s.depth, key::kStart,
      flag(s.start), key::kSignal, s.signal, key::kFreeBacktraces, flag(s.free_backtraces),
      key::kTimestamps, flag(s.timestamps), key::kBuffered, flag(s.buffered), key::kFollowForks,
      flag(s.follow_forks), key::kArgs, flag(s.arguments));
  if (!s.extensions) {
    text += fmt::format(",{}=0", key::kExtensions);
  }
  if (!s.sizes.empty()) {
    text += fmt::format(",{}={}", key::kSizes,
                        fmt::join(s.sizes, std::string_view(&tracer_options::kListSeparator, 1)));
  }
  if (s.compact) {
    text += fmt::format(",{}=1", key::kCompact);
    if (s.compress_level > 0) {
      text += fmt::format(",{}={}", key::kCompress, s.compress_level);
    }
    if (s.leak_check) {
      text += fmt::format(",{}=1", key::kLeakCheck);
    }
  }
  if (s.sample_bytes != 0) {
    text += fmt::format(",{}={}", key::kSampleBytes, s.sample_bytes);
  }
  if (s.file_from_recorder) {
    text += fmt::format(",{}=1", key::kFileFromRecorder);
  }
  if (!s.audit_patterns.empty()) {
    if (s.audit_patterns.find(',') != std::string::npos) {
      throw std::invalid_argument("--audit '" + s.audit_patterns +
                                  "': a pattern must not contain ','");
    }
    if (s.audit_patterns.size() >= tracer_options::kMaxAuditPatterns) {
      throw std::invalid_argument(
          fmt::format("--audit: the patterns are longer than the tracer takes ({} bytes)",
                      tracer_options::kMaxAuditPatterns - 1));
    }
    text += fmt::format(",{}={}", key::kAudit, s.audit_patterns);
  }
  if (s.managed) {
    if (s.managed->find(',') != std::string::npos) {
      throw std::invalid_argument(*s.managed +
                                  ": a managed-mode output directory must not contain ','");
    }
    text += fmt::format(",{}={}", key::kManaged, *s.managed);
  }
  // A directory with a comma cannot be said: attachments are then not written (the trace is).
  if (s.attachments && s.attachments->find(',') == std::string::npos) {
    text += fmt::format(",{}={}", key::kAttachments, *s.attachments);
  }
  return text;
}

}  // namespace rtrace::recorder
