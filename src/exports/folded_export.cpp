// Collapsed stacks ("folded"): one `outer;...;inner value` line per distinct stack of the
// chosen resource type, as flamegraph.pl, inferno and speedscope read them.
#include <fmt/format.h>

#include <map>

#include "exports/allocation_profile.h"
#include "exports/stack_exports.h"
#include "io/terminal_text.h"

namespace rtrace::exporters {
namespace {

// The folded format splits frames on ';' and the value on the last space, line by line; other
// control characters (terminal escapes in a name from the trace) print as `\xHH`.
std::string folded_frame(std::string name) {
  for (char& c : name) {
    if (c == ';' || c == '\n' || c == '\r') {
      c = '_';
    }
  }
  return terminal_safe(name);
}

class FoldedExport final : public AllocationProfile {
 public:
  FoldedExport(OutputStream& out, const ExportOptions& options)
      : out_(out), weight_(parse_weight(options.weight)), type_name_(options.resource_type) {}

  void finish() override {
    settle();
    const TypeProfile* type = chosen_type(type_name_);
    // Sorted lines, equal stacks (different addresses, one function) merged.
    std::map<std::string, std::uint64_t> lines;
    for (const Site& site : sites()) {
      if (type == nullptr || site.type != effective_resource_type(type->type.id)) {
        continue;
      }
      const std::uint64_t value = site.weight(weight_);
      if (value == 0) {
        continue;
      }
      std::string stack;
      for (const std::string& name : stack_names(site)) {
        if (!stack.empty()) {
          stack += ';';
        }
        stack += folded_frame(name);
      }
      lines[stack] += value;
    }
    for (const auto& [stack, value] : lines) {
      out_.buffer() += fmt::format("{} {}\n", stack, value);
      out_.maybe_flush();
    }
    out_.flush();
  }

 private:
  OutputStream& out_;
  Weight weight_;
  std::string type_name_;
};

}  // namespace

ExportInfo folded_export() {
  return {
      .name = "folded",
      .description = "collapsed stacks for flamegraph.pl, inferno, speedscope (--weight)",
      .suffix = ".folded",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<FoldedExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
