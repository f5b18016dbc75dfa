// The bash completion script the build generates (share/bash-completion/completions/rtrace),
// sourced into a real bash: it registers every command, and completes real prefixes as bash asks
// for them (COMP_WORDS split as bash splits the line, COMP_CWORD the last word, the function
// called), the replies read back exactly.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/subcommands.h"
#include "exports/export_registry.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using Words = std::vector<std::string>;

fs::path script() {
  return test::build_dir() / "share" / "bash-completion" / "completions" / "rtrace";
}

// A word for bash, in single quotes.
std::string shell_word(const std::string& word) {
  std::string quoted = "'";
  for (const char c : word) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

// Runs `body` in bash after sourcing the script; what it printed. With `set -u`, which some
// users keep in their interactive shell: the script must not read an unset variable.
std::string in_bash(const std::string& body) {
  const test::ScratchDir dir;
  const fs::path file = dir / "run.bash";
  std::ofstream(file) << "set -u\nsource " << shell_word(script().string()) << "\n" << body << "\n";
  const test::CommandResult r = test::run_command("bash " + test::quoted(file));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

// The replies to `words`, the last of which is being completed; the first is the command, as
// typed (the built tool's path, so that `-e` can ask it for its modules). `path`: put first in
// PATH.
Words complete(const Words& words, const std::string& path = "") {
  std::string body;
  if (!path.empty()) {
    body += "PATH=" + shell_word(path) + ":$PATH\n";
  }
  body += "COMP_WORDS=(";
  for (const std::string& word : words) {
    body += " " + shell_word(word);
  }
  body +=
      " )\nCOMP_CWORD=" + std::to_string(words.size() - 1) +
      "\n_rtrace_complete\nfor reply in \"${COMPREPLY[@]}\"; do printf '%s\\n' \"$reply\"; done";
  Words replies;
  std::istringstream lines(in_bash(body));
  for (std::string line; std::getline(lines, line);) {
    replies.push_back(line);
  }
  return replies;
}

std::string tool(const std::string& name) {
  return (test::build_dir() / "bin" / name).string();
}
Words rtrace(Words rest) {
  rest.insert(rest.begin(), tool("rtrace"));
  return rest;
}

Words sorted(Words words) {
  std::sort(words.begin(), words.end());
  return words;
}

TEST(BashCompletion, RegistersEveryCommand) {
  EXPECT_EQ(in_bash("complete -p rtrace sp-rtrace sp-rtrace-postproc sp-rtrace-resolve"),
            "complete -F _rtrace_complete rtrace\n"
            "complete -F _rtrace_complete sp-rtrace\n"
            "complete -F _rtrace_complete sp-rtrace-postproc\n"
            "complete -F _rtrace_complete sp-rtrace-resolve\n");
}

TEST(BashCompletion, Subcommands) {
  Words all;
  for (const cli::Subcommand& command : cli::subcommands()) {
    all.emplace_back(command.name);
  }
  EXPECT_EQ(complete(rtrace({""})), all);
  EXPECT_EQ(complete(rtrace({"rec"})), Words{"record"});
  EXPECT_EQ(complete(rtrace({"apitrace", ""})), (Words{"dump", "info"}));
  EXPECT_EQ(complete(rtrace({"stacktrack", ""})), Words{"expand"});
}

// Every subcommand's options, all of them, as it declares them; the hidden `completion` is not
// offered.
TEST(BashCompletion, EverySubcommandsOptions) {
  CLI::App app;
  for (const cli::Subcommand& command : cli::subcommands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name));
    command.setup(*sub);
    Words options;
    for (const CLI::Option* option : sub->get_options()) {
      for (const std::string& name : option->get_snames()) {
        options.push_back("-" + name);
      }
      for (const std::string& name : option->get_lnames()) {
        options.push_back("--" + name);
      }
    }
    EXPECT_EQ(complete(rtrace({std::string(command.name), "-"})), options) << command.name;
  }
  EXPECT_EQ(complete(rtrace({"comp"})), Words{});
}

TEST(BashCompletion, OptionsByPrefix) {
  EXPECT_EQ(complete(rtrace({"report", "--h"})), (Words{"--help", "--html", "--html-min-share"}));
  EXPECT_EQ(complete({tool("sp-rtrace-postproc"), "--s"}), (Words{"--strict", "--sort"}));
}

TEST(BashCompletion, FixedSetsOfValues) {
  Words formats;
  for (const ExportInfo& info : exports()) {
    formats.emplace_back(info.name);
  }
  EXPECT_EQ(complete(rtrace({"export", ""})), formats);
  EXPECT_EQ(complete(rtrace({"export", "folded", "-w", ""})),
            (Words{"leaked", "allocated", "peak", "count"}));
  EXPECT_EQ(complete(rtrace({"process", "--to", "fl"})), Words{"flamegraph"});
  EXPECT_EQ(complete(rtrace({"record", "--format", ""})), (Words{"compact", "sp-rtrace"}));
  EXPECT_EQ(complete({tool("sp-rtrace-resolve"), "-m", "s"}), Words{"single-cache"});
}

// bash splits `--to=c` at '=' and `-e memory:f` at ':'; readline replaces only what follows the
// last of them, so that is what the replies hold.
TEST(BashCompletion, ValuesAfterEqualsAndColon) {
  EXPECT_EQ(complete(rtrace({"process", "--to", "=", "c"})),
            (Words{"compact", "callgraph", "chrome"}));
  EXPECT_EQ(complete({tool("sp-rtrace-postproc"), "--to", "=", "f"}),
            (Words{"folded", "flamegraph"}));
  EXPECT_EQ(complete(rtrace({"record", "-e", "memory", ":", "f"})), Words{"file"});
}

// The modules as `rtrace record -l` lists the built ones (the main module is always loaded).
TEST(BashCompletion, ModulesFromTheCatalogue) {
  EXPECT_EQ(complete(rtrace({"record", "-e", "sh"})), (Words{"shmposix", "shmsysv"}));
  EXPECT_EQ(complete(rtrace({"record", "--preload", "mem"})), (Words{"memory", "memtransfer"}));
  EXPECT_EQ(complete({tool("sp-rtrace"), "-e", "mem"}), (Words{"memory", "memtransfer"}));
  EXPECT_EQ(complete(rtrace({"record", "-e", "ma"})), Words{});
}

TEST(BashCompletion, NumbersCompleteNothing) {
  EXPECT_EQ(complete(rtrace({"record", "-b", ""})), Words{});
  EXPECT_EQ(complete(rtrace({"report", "-n", ""})), Words{});
}

TEST(BashCompletion, FileNamesElsewhere) {
  const test::ScratchDir dir;
  for (const char* name : {"trace.rtrace", "trace.txt", "other"}) {
    std::ofstream(dir / name) << "x";
  }
  const std::string prefix = (dir / "tra").string();
  const Words traces{(dir / "trace.rtrace").string(), (dir / "trace.txt").string()};
  EXPECT_EQ(sorted(complete(rtrace({"report", prefix}))), traces);
  EXPECT_EQ(sorted(complete(rtrace({"process", "-i", prefix}))), traces);
  EXPECT_EQ(complete(rtrace({"export", "folded", "-o", (dir / "o").string()})),
            Words{(dir / "other").string()});
}

// record takes a program: command names for it, then the program's own arguments (file names,
// never record's options).
TEST(BashCompletion, TheProgramToRecordAndItsArguments) {
  const test::ScratchDir dir;
  const fs::path program = dir / "rtrace-completion-probe";
  std::ofstream(program) << "#!/bin/sh\n";
  fs::permissions(program, fs::perms::owner_all);
  EXPECT_EQ(complete(rtrace({"record", "rtrace-completion-pr"}), dir.path()),
            Words{"rtrace-completion-probe"});
  EXPECT_EQ(complete(rtrace({"record", "-x", "rtrace-completion-pr"}), dir.path()),
            Words{"rtrace-completion-probe"});
  EXPECT_EQ(complete(rtrace({"record", "-b", "64", "--", "rtrace-completion-pr"}), dir.path()),
            Words{"rtrace-completion-probe"});
  EXPECT_EQ(complete({tool("sp-rtrace"), "-x", "rtrace-completion-pr"}, dir.path()),
            Words{"rtrace-completion-probe"});
  EXPECT_EQ(complete(rtrace({"record", "ls", "--f"})), Words{});
  EXPECT_EQ(complete(rtrace({"record", "ls", (dir / "rtrace-completion-pr").string()})),
            Words{program.string()});
}

}  // namespace
}  // namespace rtrace
