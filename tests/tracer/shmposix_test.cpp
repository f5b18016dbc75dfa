// librtrace-shmposix.so end to end: a program creating, mapping, unmapping, closing and
// unlinking a POSIX shared memory object, mapping a file and an anonymous region, recorded by
// `rtrace record`, alone and beside the other modules in any order: every record exactly (type,
// name, size, id, arguments, in order), and its leaks through `rtrace process -l`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_paths.h"
#include "trace_decoder.h"

namespace rtrace::test {
namespace {

namespace fs = std::filesystem;

std::string quote(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::string rtrace_bin() {
  return quote(build_dir() / "bin" / "rtrace");
}

// The value of `key=` in the program's output line.
std::string printed(const std::string& output, const std::string& key) {
  const std::string text = " " + output;
  const auto at = text.find(" " + key + "=");
  if (at == std::string::npos) {
    return {};
  }
  const auto begin = at + key.size() + 2;
  return text.substr(begin, text.find_first_of(" \n", begin) - begin);
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

// The id the original gives a shared memory object: the one-at-a-time hash of its name.
std::uint32_t object_id(const std::string& name) {
  std::uint32_t hash = 0;
  for (const char c : name) {
    hash += static_cast<unsigned char>(c);
    hash += hash << 10;
    hash ^= hash >> 6;
  }
  hash += hash << 3;
  hash ^= hash >> 11;
  hash += hash << 15;
  return hash;
}

// "name<type>(size) = 0xid $arg=value ..." / "name<type>(0xid) $arg=value ...", for the calls
// whose type is not in `skip`.
std::vector<std::string> described_calls(const TraceDecoder& trace,
                                         const std::vector<std::string>& skip) {
  std::map<std::uint32_t, std::string> types;
  for (const std::string& resource : trace.resources) {
    std::istringstream fields(resource);  // "id flags type (description)"
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::string type;
    fields >> id >> flags >> type;
    types[id] = type;
  }
  std::vector<std::string> calls;
  for (const DecodedCall& call : trace.calls) {
    const std::string& type = types[call.resource_type];
    if (std::find(skip.begin(), skip.end(), type) != skip.end()) {
      continue;
    }
    std::string text = call.name + "<" + type + ">";
    text += call.kind == 2 ? "(" + std::to_string(call.size) + ") = " + hex(call.id)
                           : "(" + hex(call.id) + ")";
    for (const auto& [name, value] : call.args) {
      text.append(" $").append(name).append("=").append(value);
    }
    calls.push_back(text);
  }
  return calls;
}

struct TracedRun {
  std::vector<std::string> calls;
  std::vector<std::string> resources;
  std::string output;
  std::string leaks;
};

TracedRun run_program(const std::string& modules, const std::vector<std::string>& skip) {
  const ScratchDir scratch;
  fs::create_directories(scratch / "out");
  const std::string object = "/rtrace-shmposix-test-" + scratch.path().filename().string();
  const fs::path file = scratch / "mapped-file";
  const auto run = run_command(rtrace_bin() + " record -q -e " + modules + " -o " +
                               quote(scratch / "out") + " -x " + quote(RTRACE_SHM_POSIX_PROGRAM) +
                               " " + quote(object) + " " + quote(file));
  EXPECT_EQ(run.status, 0) << run.err;
  TracedRun result;
  result.output = run.out;
  std::vector<fs::path> traces;
  for (const auto& entry : fs::directory_iterator(scratch / "out")) {
    traces.push_back(entry.path());
  }
  EXPECT_EQ(traces.size(), 1U);
  if (traces.empty()) {
    return result;
  }
  const TraceDecoder trace = decode_file(traces.front().string());
  EXPECT_TRUE(trace.complete()) << trace.error();
  result.calls = described_calls(trace, skip);
  result.resources = trace.resources;
  const auto leaks = run_command(rtrace_bin() + " process -l -i " + quote(traces.front()));
  EXPECT_EQ(leaks.status, 0) << leaks.err;
  result.leaks = leaks.out;
  // What the program printed, and the names it was given, for the expected records.
  result.output += " name=" + object + " path=" + file.string() + "\n";
  return result;
}

std::vector<std::string> expected_calls(const std::string& out) {
  const std::string name = printed(out, "name");
  const std::string path = printed(out, "path");
  const std::string object = hex(object_id(name));
  const std::string fd = hex(std::stoul(printed(out, "object")));
  const std::string file = hex(std::stoul(printed(out, "file")));
  const std::string whole = printed(out, "whole");
  const std::string half = printed(out, "half");
  const std::string mapped = printed(out, "mapped");
  const std::string anonymous = printed(out, "anonymous");
  const std::string opened = " $name=" + name + " $oflag=0x42 $mode=0x180";
  return {
      "shm_open<pshmobj>(1) = " + object + opened,
      "shm_open<pshmfd>(1) = " + fd + opened,
      "mmap<pshmmap>(8192) = " + whole + " $length=0x2000 $prot=0x3 $flags=0x1 $fd=" + fd +
          " $offset=0x0 $name=" + name + " $mode=0x42",
      "mmap64<pshmmap>(4096) = " + half + " $length=0x1000 $prot=0x1 $flags=0x1 $fd=" + fd +
          " $offset=0x1000 $name=" + name + " $mode=0x42",
      "munmap<pshmmap>(" + whole + ") $length=8192",
      "close<pshmfd>(" + fd + ")",
      "shm_unlink<pshmobj>(" + object + ") $name=" + name,
      "mmap<fshmmap>(4096) = " + mapped + " $length=0x1000 $prot=0x1 $flags=0x2 $fd=" + file +
          " $offset=0x0 $name=" + path + " $mode=0x42",
      "mmap<shmmap>(16384) = " + anonymous +
          " $length=0x4000 $prot=0x3 $flags=0x22 $fd=0xffffffff $offset=0x0",
      "munmap<shmmap>(" + anonymous + ") $length=16384",
      "munmap<fshmmap>(" + mapped + ") $length=4096",
  };
}

const char* const kRegistry[] = {"pshmmap (posix shared memory mapping)", "fshmmap (file mapping)",
                                 "shmmap (generic memory mapping)",
                                 "pshmobj (posix shared memory object)",
                                 "pshmfd (opened posix shared memory object)"};

TEST(ShmposixModule, RecordsEveryCallAsTheOriginalDoes) {
  const TracedRun run = run_program("shmposix", {});
  ASSERT_EQ(run.resources.size(), 5U);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(run.resources[i], std::to_string(i + 1) + " 0 " + kRegistry[i]);
  }
  EXPECT_EQ(run.calls, expected_calls(run.output)) << run.output;
}

TEST(ShmposixModule, LeakIsTheMappingLeftInPlace) {
  const TracedRun run = run_program("shmposix", {});
  std::vector<std::string> lines;
  std::istringstream text(run.leaks);
  std::string line;
  while (std::getline(text, line)) {
    if (line.starts_with("# ") || (!line.empty() && std::isdigit(line[0]) != 0)) {
      lines.push_back(line);  // the call lines and the summary
    }
  }
  const std::string half = printed(run.output, "half");
  EXPECT_THAT(lines,
              ::testing::ElementsAre(::testing::EndsWith("mmap64<pshmmap>(4096) = " + half),
                                     "# Resource - pshmmap (posix shared memory mapping):",
                                     "# 1 block(s) leaked with total size of 4096 bytes",
                                     "# Resource - fshmmap (file mapping):",
                                     "# 0 block(s) leaked with total size of 0 bytes",
                                     "# Resource - shmmap (generic memory mapping):",
                                     "# 0 block(s) leaked with total size of 0 bytes",
                                     "# Resource - pshmobj (posix shared memory object):",
                                     "# 0 block(s) leaked with total size of 0 bytes",
                                     "# Resource - pshmfd (opened posix shared memory object):",
                                     "# 0 block(s) leaked with total size of 0 bytes"))
      << run.leaks;
}

// close, open and mmap are wrapped by several modules (main protects its trace connection from
// close): each passes the call on to the next definition, so every module sees it, in any order.
TEST(ShmposixModule, ComposesWithTheOtherModulesInAnyOrder) {
  for (const std::string modules :
       {"memory:shmsysv:shmposix", "shmposix:memory", "shmsysv:shmposix:memory"}) {
    SCOPED_TRACE(modules);
    const TracedRun run = run_program(modules, {"memory", "segment", "address", "control"});
    EXPECT_EQ(run.calls, expected_calls(run.output)) << run.output;
    // Type ids follow the order of -e.
    const auto first = run.resources.front();
    EXPECT_NE(first.find(modules.starts_with("memory")    ? "memory"
                         : modules.starts_with("shmsysv") ? "segment"
                                                          : "pshmmap"),
              std::string::npos)
        << first;
  }
}

// The file module wraps open and close too: beside shmposix, in either order, each module records
// the calls of its own types and passes them on, so both see every close. shm_open opens its
// object inside the C library (not through open): the file module sees only its close.
TEST(ShmposixModule, ComposesWithTheFileModuleInEitherOrder) {
  for (const std::string modules : {"file:shmposix", "shmposix:file:memory"}) {
    SCOPED_TRACE(modules);
    const TracedRun run = run_program(modules, {"memory"});
    std::vector<std::string> shm_calls;
    std::vector<std::string> fd_calls;
    for (const std::string& call : run.calls) {
      (call.find("<fd>") != std::string::npos ? fd_calls : shm_calls).push_back(call);
    }
    EXPECT_EQ(shm_calls, expected_calls(run.output)) << run.output;
    const std::string object = hex(std::stoul(printed(run.output, "object")));
    const std::string file = hex(std::stoul(printed(run.output, "file")));
    EXPECT_THAT(fd_calls, ::testing::ElementsAre("close<fd>(" + object + ")",
                                                 "open<fd>(1) = " + file + " $path=" +
                                                     printed(run.output, "path") + " $flags=0x42",
                                                 "close<fd>(" + file + ")"));
  }
}

}  // namespace
}  // namespace rtrace::test
