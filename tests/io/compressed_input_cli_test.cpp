// Compressed input that is cut off, corrupt or a decompression bomb, through the real commands:
// a cut compressed trace gives exactly what the same cut in a plain file gives, plus a warning at
// the compressed offset; corrupt data is an error after the output of everything before it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compressed_cut.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::fixture;
using test::read_file;
using test::run_command;
using test::ScratchDir;

std::string rtrace_bin() {
  return (test::build_dir() / "bin" / "rtrace").string();
}
std::string quote(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

// memory.raw cut in the backtrace packet of call 25 (as in ProcessCli's truncation test).
constexpr std::size_t kCut = 3010;

struct CutFiles {
  ScratchDir dir;
  std::filesystem::path plain = dir / "cut.raw";
  std::filesystem::path gz = dir / "cut.gz";
  std::filesystem::path zst = dir / "cut.zst";
  std::size_t gz_size = 0;
  std::size_t zst_size = 0;

  CutFiles() {
    const std::string raw = read_file(fixture("sp-rtrace/memory/memory.raw"));
    test::write_file(plain, raw.substr(0, kCut));
    const std::string gz_bytes = test::gzip_cut(raw, kCut);
    const std::string zst_bytes = test::zstd_cut(raw, kCut);
    test::write_file(gz, gz_bytes);
    test::write_file(zst, zst_bytes);
    gz_size = gz_bytes.size();
    zst_size = zst_bytes.size();
  }
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

TEST(CompressedInputCli, CutCompressedTraceGivesWhatTheCutPlainFileGives) {
  const CutFiles files;
  struct Case {
    std::filesystem::path file;
    std::string warning;
  };
  const Case cases[] = {
      {files.gz, ":" + std::to_string(files.gz_size) +
                     ": warning: gzip data ends before its end marker (a truncated file?)\n"},
      {files.zst, ":" + std::to_string(files.zst_size) +
                      ": warning: zstd data ends inside a frame (a truncated file?)\n"},
  };
  for (const Case& c : cases) {
    for (const std::string options : {" process", " process -lc", " process --strict",
                                      " report --no-resolve", " report --no-resolve --json"}) {
      const auto plain = run_command(rtrace_bin() + options + " -i " + quote(files.plain));
      const auto packed = run_command(rtrace_bin() + options + " -i " + quote(c.file));
      ASSERT_FALSE(plain.out.empty()) << options;
      EXPECT_EQ(packed.out, plain.out) << options << " " << c.file;
      EXPECT_EQ(packed.status, plain.status) << options << " " << c.file;
      EXPECT_EQ(packed.err, replace_all(plain.err, files.plain.string(), c.file.string()) +
                                "rtrace: " + c.file.string() + c.warning)
          << options;
    }
    const auto to_file = run_command(rtrace_bin() + " process -i " + quote(c.file) + " -o " +
                                     quote(c.file) + ".txt");
    EXPECT_EQ(to_file.status, 0) << to_file.err;
    EXPECT_EQ(read_file(c.file.string() + ".txt"),
              run_command(rtrace_bin() + " process -i " + quote(files.plain)).out);
  }
}

TEST(CompressedInputCli, CorruptCompressedTraceIsAnErrorAfterTheOutputBeforeIt) {
  const CutFiles files;
  const std::string bad = test::gzip_cut(read_file(fixture("sp-rtrace/memory/memory.raw")), kCut) +
                          std::string(64, '\xff');
  test::write_file(files.dir / "bad.gz", bad);
  const auto plain = run_command(rtrace_bin() + " process -i " + quote(files.plain) + " -o " +
                                 quote(files.dir / "plain.txt"));
  const auto r = run_command(rtrace_bin() + " process -i " + quote(files.dir / "bad.gz") + " -o " +
                             quote(files.dir / "bad.txt"));
  EXPECT_EQ(r.status, 1);
  const std::string name = (files.dir / "bad.gz").string();
  EXPECT_EQ(r.err, replace_all(plain.err, files.plain.string(), name) + "rtrace: " + name + ":" +
                       std::to_string(bad.size() - 63) +
                       ": corrupt gzip data: invalid block type\n");
  EXPECT_EQ(read_file(files.dir / "bad.txt"), read_file(files.dir / "plain.txt"));
}

TEST(CompressedInputCli, DecompressionBombIsStoppedUnlessTheLimitIsRaised) {
  const ScratchDir dir;
  // A valid text trace: a header and 80 MB of comment lines, in a few kilobytes of zstd.
  ASSERT_EQ(run_command("{ echo 'version=2.0, arch=x86_64, timestamp=2026.11.21 11:09:09, "
                        "process=./bomb, pid=7'; yes \"# $(head -c 998 /dev/zero | tr '\\0' x)\" "
                        "| head -n 80000; } | zstd -q -c > " +
                        quote(dir / "bomb.zst"))
                .status,
            0);
  const auto stopped = run_command(rtrace_bin() + " process -i " + quote(dir / "bomb.zst"));
  EXPECT_EQ(stopped.status, 1);
  EXPECT_NE(stopped.err.find("rtrace: " + (dir / "bomb.zst").string() + ":"), std::string::npos)
      << stopped.err;
  EXPECT_NE(stopped.err.find(": zstd data expands to more than 1000 times its compressed size (a "
                             "decompression bomb?); stopped there. Set RTRACE_MAX_RATIO to raise "
                             "the limit (0: no limit)\n"),
            std::string::npos)
      << stopped.err;
  const auto allowed =
      run_command("RTRACE_MAX_RATIO=0 " + rtrace_bin() + " process -i " + quote(dir / "bomb.zst"));
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_EQ(allowed.err, "");
}

TEST(CompressedInputCli, DirectoryAsInputIsNamed) {
  const ScratchDir dir;
  const auto r = run_command(rtrace_bin() + " process -i " + quote(dir.path()));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rtrace: " + dir.path().string() + ": is a directory, not a trace\n");
}

}  // namespace
}  // namespace rtrace
