// `cmake --install` into a fresh prefix: every command, module, header, man page and bash
// completion lands where it belongs, and the installed rtrace records a real program with the
// installed tracer modules (found relative to itself, so the tree may move) and post-processes
// the trace with the installed tools. The modules installed are exactly those `rtrace record -l`
// lists (with the helper libraries beside them), and every module the build declares is among them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"

namespace rtrace {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::ScratchDir;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::set<std::string> split_list(const std::string& list) {
  std::set<std::string> items;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ':')) {
    if (!item.empty()) {
      items.insert(item);
    }
  }
  return items;
}

// The files `rtrace record -l` lists (its second column), each with a description.
std::set<std::string> listed_files(const std::string& listing) {
  std::set<std::string> files;
  std::istringstream lines(listing);
  std::string line;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line)) {
    if (line.starts_with("(in ")) {
      break;
    }
    std::istringstream fields(line);
    std::string alias;
    std::string file;
    std::string description;
    fields >> alias >> file;
    std::getline(fields, description);
    EXPECT_NE(description.find_first_not_of(' '), std::string::npos) << line;
    files.insert(file);
  }
  return files;
}

std::set<std::string> files_in(const fs::path& directory) {
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    files.insert(entry.path().filename().string());
  }
  return files;
}

std::set<std::string> united(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

// Records `program` with the installed rtrace (its module options in `record_options`), then
// returns `rtrace process -lc` of the trace.
std::string record_and_report(const fs::path& prefix, const fs::path& traces,
                              const std::string& record_options, const std::string& program) {
  const std::string bin = (prefix / "bin").string() + "/";
  fs::create_directory(traces);
  const auto record = run_command("env -u RTRACE_LIBDIR " + bin + "rtrace record -q -s " +
                                  record_options + " -o " + quote(traces) + " -x " + program);
  EXPECT_EQ(record.status, 0) << record_options << ": " << record.err;
  fs::path trace;
  for (const auto& entry : fs::directory_iterator(traces)) {
    trace = entry.path();
  }
  if (trace.empty()) {
    ADD_FAILURE() << record_options << ": no trace recorded";
    return {};
  }
  const auto report = run_command(bin + "rtrace process -lc -i " + quote(trace));
  EXPECT_EQ(report.status, 0) << report.err;
  return report.out;
}

TEST(Install, InstalledToolsRecordAndProcessARealProgram) {
  const ScratchDir dir;
  const fs::path staged = dir / "staged";
  const auto install = run_command(std::string(RTRACE_CMAKE_COMMAND) + " --install " +
                                   quote(test::build_dir()) + " --prefix " + quote(staged));
  ASSERT_EQ(install.status, 0) << install.err;
  for (const char* file :
       {"bin/rtrace", "bin/sp-rtrace", "bin/sp-rtrace-postproc", "bin/sp-rtrace-resolve",
        "lib/rtrace/librtrace-main.so", "lib/rtrace/librtrace-memory.so",
        "lib/rtrace/librtrace-file.so", "lib/rtrace/librtrace-shmsysv.so",
        "lib/rtrace/librtrace-shmposix.so", "lib/rtrace/librtrace-memtransfer.so",
        "lib/rtrace/librtrace-gobject.so", "lib/rtrace/librtrace-pagemap.so",
        "lib/librtrace-context.so", "include/rtrace/sp_rtrace_context.h", "share/man/man1/rtrace.1",
        "share/man/man1/rtrace-record.1", "share/man/man1/sp-rtrace-postproc.1",
        "share/rtrace/default.supp"}) {
    EXPECT_TRUE(fs::is_regular_file(staged / file)) << file;
  }
  // The bash completion, under each command's name where bash-completion looks for it.
  for (const char* command : {"rtrace", "sp-rtrace", "sp-rtrace-postproc", "sp-rtrace-resolve"}) {
    const fs::path completion = staged / "share/bash-completion/completions" / command;
    const auto registered = run_command(
        "bash -c " + quote("source " + completion.string() + " && complete -p " + command));
    EXPECT_EQ(registered.out, std::string("complete -F _rtrace_complete ") + command + "\n")
        << completion << ": " << registered.err;
  }
  const fs::path module_dir = fs::path("lib") / "rtrace";
  const std::set<std::string> shipped = split_list(RTRACE_INSTALLED_MODULE_FILES);
  const std::set<std::string> test_only = split_list(RTRACE_INSTALLED_TEST_MODULE_FILES);
  ASSERT_TRUE(shipped.contains("librtrace-qobject.so"));
  ASSERT_TRUE(shipped.contains("librtrace-audit.so"));
  ASSERT_TRUE(shipped.contains("rtrace-audit-linker.so"));
  ASSERT_TRUE(test_only.contains("librtrace-getpid.so"));
  // What a user's install gets: every shipped tracer library, no test-only module.
  EXPECT_EQ(files_in(staged / module_dir), shipped);

  // The test-only modules are a component of their own, installed only when asked for.
  const auto install_test_modules =
      run_command(std::string(RTRACE_CMAKE_COMMAND) + " --install " + quote(test::build_dir()) +
                  " --prefix " + quote(staged) + " --component " RTRACE_TEST_MODULES_COMPONENT);
  ASSERT_EQ(install_test_modules.status, 0) << install_test_modules.err;
  EXPECT_EQ(files_in(staged / module_dir), united(shipped, test_only));

  // The installed tree is relocatable: the tools find their modules relative to themselves.
  const fs::path prefix = dir / "moved";
  fs::rename(staged, prefix);
  const std::string bin = (prefix / "bin").string() + "/";
  const std::string no_override = "env -u RTRACE_LIBDIR ";

  const auto modules = run_command(no_override + bin + "rtrace record -l");
  ASSERT_EQ(modules.status, 0) << modules.err;
  EXPECT_NE(modules.out.find("(in " + (prefix / "lib" / "rtrace").string() + ")"),
            std::string::npos)
      << modules.out;
  // record -l lists every installed library that is a module to preload (the helpers, such as
  // the audit module's linker library, are not), and every one of them is installed.
  std::set<std::string> installed_modules;
  for (const std::string& file : files_in(prefix / module_dir)) {
    if (file.starts_with("librtrace-")) {
      installed_modules.insert(file);
    }
  }
  EXPECT_EQ(listed_files(modules.out), installed_modules) << modules.out;
  EXPECT_NE(modules.out.find("\ngetpid      librtrace-getpid.so      getpid: "), std::string::npos)
      << modules.out;

  fs::create_directory(dir / "traces");
  const auto record =
      run_command(no_override + bin + "rtrace record -q -s -e memory:file -o " +
                  quote(dir / "traces") + " -x " + quote(test::build_dir() / "examples" / "leaky"));
  ASSERT_EQ(record.status, 0) << record.err;
  fs::path trace;
  for (const auto& entry : fs::directory_iterator(dir / "traces")) {
    trace = entry.path();
  }
  ASSERT_FALSE(trace.empty()) << "no trace recorded";

  const auto leaks = run_command(bin + "rtrace process -lc -i " + quote(trace));
  ASSERT_EQ(leaks.status, 0) << leaks.err;
  // The traced program ran with the installed modules, and leaked.
  EXPECT_NE(
      leaks.out.find(": " + (prefix / "lib" / "rtrace" / "librtrace-memory.so").string() + " => "),
      std::string::npos)
      << leaks.out;
  EXPECT_NE(leaks.out.find("# Resource - memory (memory allocation in bytes):\n# "),
            std::string::npos)
      << leaks.out;
  // The installed file module found librtrace-main.so beside itself.
  EXPECT_NE(leaks.out.find("# Resource - fd (file descriptor):\n# "), std::string::npos)
      << leaks.out;

  const auto resolved = run_command(bin + "sp-rtrace-postproc -l -c -i " + quote(trace) + " | " +
                                    bin + "sp-rtrace-resolve");
  ASSERT_EQ(resolved.status, 0) << resolved.err;
  EXPECT_NE(resolved.out.find(" main() at leaky.c:"), std::string::npos) << resolved.out;

  // The modules an install once left out, and the test-only one, work from the installed tree.
  const std::string qobject =
      record_and_report(prefix, dir / "qobject", "-e qobject", RTRACE_QOBJECT_PROGRAM);
  EXPECT_NE(qobject.find("# Resource - qobject (QObject instance):\n"), std::string::npos)
      << qobject;
  const std::string audit =
      record_and_report(prefix, dir / "audit", "-e audit --audit 'target_*'", RTRACE_AUDIT_PROGRAM);
  EXPECT_NE(audit.find("# Resource - audit (virtual audit resource):\n"), std::string::npos)
      << audit;
  const std::string getpid =
      record_and_report(prefix, dir / "getpid", "-e getpid", RTRACE_GETPID_PROGRAM);
  EXPECT_NE(getpid.find("# Resource - getpid (getpid call):\n"), std::string::npos) << getpid;
}

// The context library as programs link against it: a versioned SONAME with the unversioned link
// for the linker, and the pkg-config file that gives the flags; a program built with them runs,
// and under the installed rtrace its calls carry their contexts.
TEST(Install, ContextLibraryBuildsProgramsWithPkgConfig) {
  const ScratchDir dir;
  const fs::path prefix = dir / "prefix";
  const auto install = run_command(std::string(RTRACE_CMAKE_COMMAND) + " --install " +
                                   quote(test::build_dir()) + " --prefix " + quote(prefix));
  ASSERT_EQ(install.status, 0) << install.err;
  const fs::path lib = prefix / "lib";
  EXPECT_EQ(fs::read_symlink(lib / "librtrace-context.so"), "librtrace-context.so.0");
  EXPECT_EQ(fs::read_symlink(lib / "librtrace-context.so.0"),
            "librtrace-context.so." RTRACE_PROJECT_VERSION);
  const auto soname =
      run_command("readelf -d " + quote(lib / "librtrace-context.so") + " | grep -F '(SONAME)'");
  EXPECT_NE(soname.out.find("Library soname: [librtrace-context.so.0]"), std::string::npos)
      << soname.out << soname.err;

  // --define-prefix: the file names the configured prefix; the tree is installed elsewhere.
  const auto flags =
      run_command("PKG_CONFIG_PATH=" + quote(lib / "pkgconfig") + " " + RTRACE_PKG_CONFIG +
                  " --define-prefix --cflags --libs rtrace-context");
  ASSERT_EQ(flags.status, 0) << flags.err;
  EXPECT_EQ(flags.out,
            "-I" + (prefix / "include").string() + " -L" + lib.string() + " -lrtrace-context \n");
  std::string cflags = flags.out;
  cflags.pop_back();
  const fs::path program = dir / "contexts";
  const auto build = run_command(std::string(RTRACE_C_COMPILER) + " -o " + quote(program) + " " +
                                 quote(test::source_dir() / "tests/install/package/contexts.c") +
                                 " " + cflags + " -Wl,-rpath," + lib.string());
  ASSERT_EQ(build.status, 0) << build.err;
  const auto untraced = run_command(quote(program));
  EXPECT_EQ(untraced.out, "context 1, mask 0\n") << untraced.err;
  const auto needed = run_command("readelf -d " + quote(program));
  EXPECT_NE(needed.out.find("Shared library: [librtrace-context.so.0]"), std::string::npos)
      << needed.out;

  // The calls inside the context carry it: -C 1 keeps malloc(100), not the malloc(200) outside.
  const fs::path traces = dir / "traces";
  fs::create_directory(traces);
  const auto record = run_command("env -u RTRACE_LIBDIR " + quote(prefix / "bin" / "rtrace") +
                                  " record -q -o " + quote(traces) + " -x " + quote(program));
  ASSERT_EQ(record.status, 0) << record.err;
  fs::path trace;
  for (const auto& entry : fs::directory_iterator(traces)) {
    trace = entry.path();
  }
  ASSERT_FALSE(trace.empty()) << "no trace recorded";
  const auto in_context =
      run_command(quote(prefix / "bin" / "rtrace") + " process -l -C 1 -i " + quote(trace));
  ASSERT_EQ(in_context.status, 0) << in_context.err;
  EXPECT_NE(in_context.out.find("\n@ 1 : loading\n"), std::string::npos) << in_context.out;
  EXPECT_NE(in_context.out.find(" malloc(100) = 0x"), std::string::npos) << in_context.out;
  EXPECT_EQ(in_context.out.find("malloc(200)"), std::string::npos) << in_context.out;
}

}  // namespace
}  // namespace rtrace
