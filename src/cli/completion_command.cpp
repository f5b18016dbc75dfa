#include "cli/completion_command.h"

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/bash_completion.h"
#include "cli/process_command.h"
#include "cli/record_command.h"
#include "cli/resolve_command.h"

namespace rtrace::cli {
namespace {

// The compatible commands declare their options as their main() does, through the same
// functions, so that the script follows any option added there.
void print_script(CLI::App& rtrace) {
  CLI::App sp_rtrace;
  RecordOptions record;
  record.compatible = true;
  add_record_options(sp_rtrace, record);
  CLI::App postproc;
  ProcessOptions process;
  add_process_options(postproc, process);
  CLI::App resolve_app;
  ResolveCommandOptions resolve;
  add_resolve_options(resolve_app, resolve);
  const std::array commands{CompletedCommand{"rtrace", &rtrace},
                            CompletedCommand{"sp-rtrace", &sp_rtrace},
                            CompletedCommand{"sp-rtrace-postproc", &postproc},
                            CompletedCommand{"sp-rtrace-resolve", &resolve_app}};
  const std::string script = bash_completion_script(commands);
  std::fwrite(script.data(), 1, script.size(), stdout);
  if (std::fflush(stdout) != 0) {
    throw CLI::RuntimeError("rtrace completion: cannot write standard output", 1);
  }
}

}  // namespace

void add_completion_command(CLI::App& rtrace) {
  CLI::App* completion = rtrace.add_subcommand(
      kCompletionCommand, "Print the bash completion script of rtrace and the sp-rtrace commands");
  completion->group("");  // hidden: the build and packagers run it, users source its output
  auto shell = std::make_shared<std::string>();
  completion->add_option("shell", *shell, "The shell (bash)")
      ->required()
      ->check(CLI::IsMember({"bash"}));
  completion->callback([&rtrace, shell] {
    print_script(rtrace);
    throw CLI::Success();
  });
}

}  // namespace rtrace::cli
