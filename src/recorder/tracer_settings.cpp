#include "recorder/tracer_settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace rtrace::recorder {
namespace {

char flag(bool on) {
  return on ? '1' : '0';
}

}  // namespace

std::string format_tracer_options(const TracerSettings& s) {
  std::string text = fmt::format(
      "depth={},start={},signal={},free-backtraces={},timestamps={},buffered={},follow-forks={},"
      "args={}",
      s.depth, flag(s.start), s.signal, flag(s.free_backtraces), flag(s.timestamps),
      flag(s.buffered), flag(s.follow_forks), flag(s.arguments));
  // The list separator is ';' because ',' separates the keys.
  if (!s.sizes.empty()) {
    text += fmt::format(",sizes={}", fmt::join(s.sizes, ";"));
  }
  if (s.managed) {
    if (s.managed->find(',') != std::string::npos) {
      throw std::invalid_argument(*s.managed +
                                  ": a managed-mode output directory must not contain ','");
    }
    text += ",managed=" + *s.managed;
  }
  return text;
}

}  // namespace rtrace::recorder
