#include "cli/process_stages.h"

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "cli/standard_input_once.h"
#include "pipeline/pipeline.h"

namespace rtrace::cli {

std::vector<StageSpec> process_stages(const ProcessOptions& o) {
  if (o.sort && !o.compress) {
    throw StageOptionError("-s/--sort needs -c/--compress");
  }
  std::vector<StageSpec> stages{{"expand", ""}};
  const auto add = [&stages](bool wanted, std::string name, std::string argument = {}) {
    if (wanted) {
      stages.push_back({std::move(name), std::move(argument)});
    }
  };
  add(o.context_mask.has_value(), "context", o.context_mask.value_or(""));
  add(o.resource_mask.has_value(), "resource", o.resource_mask.value_or(""));
  add(o.include_file.has_value(), "include", o.include_file.value_or(""));
  add(o.exclude_file.has_value(), "exclude", o.exclude_file.value_or(""));
  add(o.call_address.has_value(), "call-address", o.call_address.value_or(""));
  add(o.backtrace_depth.has_value(), "depth",
      o.backtrace_depth ? std::to_string(*o.backtrace_depth) : "");
  add(o.remove_args, "remove-args");
  add(o.leaks, "leaks");
  add(o.leaks && o.leak_kinds.has_value(), "leak-kinds", o.leak_kinds.value_or(""));
  // Suppressions match names where the trace has them: resolved first when -r asks for names
  // (the groups of -c are then made of what is left).
  const bool suppress = o.leaks && o.suppression_rules != nullptr;
  add(suppress && o.resolve, "resolve");
  add(suppress, "suppress");
  add(o.compress, "compress", o.sort.value_or(""));
  add(o.resolve && !suppress, "resolve");
  return stages;
}

StageContext process_stage_context(const ProcessOptions& o) {
  StageContext context;
  context.resolve.method = symbols::ResolveMethod::SymbolTable;
  context.suppressions = o.suppression_rules;
  context.warn = [quiet = o.quiet](std::string_view message) {
    if (!quiet) {
      fmt::print(stderr, "rtrace: warning: {}\n", message);
    }
  };
  return context;
}

void check_process_options(const ProcessOptions& o) {
  std::vector<FileOption> files = {
      {"the trace (-i)", o.input.empty() ? kStandardStream : std::string_view(o.input)},
      {"--include", o.include_file ? std::string_view(*o.include_file) : ""},
      {"--exclude", o.exclude_file ? std::string_view(*o.exclude_file) : ""}};
  if (o.suppressions) {
    for (const std::string& file : o.suppressions->files) {
      files.push_back({"--suppressions", file});
    }
  }
  if (const std::optional<std::string> twice = standard_input_twice(files)) {
    throw StageOptionError(*twice);
  }
  check_stages(process_stages(o), process_stage_context(o));
}

}  // namespace rtrace::cli
