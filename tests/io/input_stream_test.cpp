#include "io/input_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <memory>
#include <span>
#include <string>
#include <thread>

#include "compressed_cut.h"
#include "io/decompression_limit.h"
#include "io/diagnostics.h"
#include "io/mapped_file.h"
#include "io/memory_source.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::run_command;
using test::ScratchDir;

std::string read_all(InputStream& in) {
  std::string all;
  for (;;) {
    const auto bytes = in.peek(4096);
    if (bytes.empty()) {
      break;
    }
    all.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    in.consume(bytes.size());
  }
  return all;
}

std::string sample_text() {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "line " + std::to_string(i) + "\n";
  }
  return text;
}

TEST(InputStream, ReadsPlainFile) {
  const ScratchDir dir;
  const std::string text = sample_text();
  test::write_file(dir / "plain", text);
  auto in = open_input((dir / "plain").string());
  EXPECT_EQ(read_all(*in), text);
  EXPECT_EQ(in->offset(), text.size());
}

TEST(InputStream, DecompressesGzipAndZstdByContent) {
  const ScratchDir dir;
  const std::string text = sample_text();
  test::write_file(dir / "trace", text);
  ASSERT_EQ(
      run_command("gzip -c '" + (dir / "trace").string() + "' > '" + (dir / "a.bin").string() + "'")
          .status,
      0);
  ASSERT_EQ(run_command("zstd -q -c '" + (dir / "trace").string() + "' > '" +
                        (dir / "b.bin").string() + "'")
                .status,
            0);
  auto gz = open_input((dir / "a.bin").string());
  EXPECT_EQ(read_all(*gz), text);
  auto zst = open_input((dir / "b.bin").string());
  EXPECT_EQ(read_all(*zst), text);
}

// A cut compressed stream ends like a cut plain file: everything before the cut is read, and the
// damage is a warning at the compressed byte offset.
TEST(InputStream, TruncatedCompressedDataEndsLikeATruncatedFile) {
  const ScratchDir dir;
  const std::string text = sample_text();
  const std::size_t keep = 1000003;
  const std::string gz = test::gzip_cut(text, keep);
  const std::string zst = test::zstd_cut(text, keep);
  test::write_file(dir / "cut.gz", gz);
  test::write_file(dir / "cut.zst", zst);
  const std::string gz_name = (dir / "cut.gz").string();
  const std::string zst_name = (dir / "cut.zst").string();

  auto gz_in = open_input(gz_name);
  EXPECT_EQ(read_all(*gz_in), text.substr(0, keep));
  CollectingDiagnostics gz_warnings;
  gz_in->report_damage(gz_warnings);
  EXPECT_EQ(gz_warnings.text(), gz_name + ":" + std::to_string(gz.size()) +
                                    ": warning: gzip data ends before its end marker (a "
                                    "truncated file?)\n");

  auto zst_in = open_input(zst_name);
  EXPECT_EQ(read_all(*zst_in), text.substr(0, keep));
  CollectingDiagnostics zst_warnings;
  zst_in->report_damage(zst_warnings);
  EXPECT_EQ(zst_warnings.text(), zst_name + ":" + std::to_string(zst.size()) +
                                     ": warning: zstd data ends inside a frame (a truncated "
                                     "file?)\n");
}

// Corrupt compressed data ends the data there too, but is an error naming the offset.
TEST(InputStream, CorruptCompressedDataIsAnErrorAtItsOffset) {
  const ScratchDir dir;
  const std::string text = sample_text();
  const std::size_t keep = 500000;
  // After the flush a new deflate block begins: 0xff starts one of the invalid type 3.
  const std::string gz = test::gzip_cut(text, keep) + std::string(64, '\xff');
  test::write_file(dir / "bad.gz", gz);
  auto gz_in = open_input((dir / "bad.gz").string());
  EXPECT_EQ(read_all(*gz_in), text.substr(0, keep));
  CollectingDiagnostics diagnostics;
  try {
    gz_in->report_damage(diagnostics);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.position(), gz.size() - 63);
    EXPECT_STREQ(error.what(), ((dir / "bad.gz").string() + ":" + std::to_string(gz.size() - 63) +
                                ": corrupt gzip data: invalid block type")
                                   .c_str());
  }

  // A zstd block header of all ones names a reserved block type.
  const std::string zst = test::zstd_cut(text, keep) + std::string(64, '\xff');
  test::write_file(dir / "bad.zst", zst);
  auto zst_in = open_input((dir / "bad.zst").string());
  EXPECT_EQ(read_all(*zst_in), text.substr(0, keep));
  try {
    zst_in->report_damage(diagnostics);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.zst:"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find(": corrupt zstd data: "), std::string::npos)
        << error.what();
    EXPECT_EQ(error.position(), zst.size() - 64);
  }
  EXPECT_EQ(diagnostics.warning_count(), 0U);
}

TEST(DecompressionLimit, AllowsSmallDataAndRefusesHugeRatios) {
  const DecompressionLimit limit(1000);
  EXPECT_FALSE(limit.exceeded(1, DecompressionLimit::kFreeBytes));
  EXPECT_TRUE(limit.exceeded(1, DecompressionLimit::kFreeBytes + 1));
  EXPECT_FALSE(limit.exceeded(1 << 20, (std::uint64_t{1} << 20) * 999));
  EXPECT_TRUE(limit.exceeded(1 << 20, (std::uint64_t{1} << 20) * 1000));
  EXPECT_FALSE(DecompressionLimit(0).exceeded(1, std::uint64_t{1} << 62));
  EXPECT_EQ(limit.describe("zstd"),
            "zstd data expands to more than 1000 times its compressed size (a decompression "
            "bomb?); stopped there. Set RTRACE_MAX_RATIO to raise the limit (0: no limit)");
}

// 200 MB of zeros in a few kilobytes: stopped soon after the free allowance, as an error.
TEST(InputStream, DecompressionBombIsStopped) {
  const ScratchDir dir;
  const std::string zeros(200 << 20, '\0');
  ZSTD_CCtx* context = ZSTD_createCCtx();
  std::string bomb(ZSTD_compressBound(zeros.size()), '\0');
  bomb.resize(ZSTD_compressCCtx(context, bomb.data(), bomb.size(), zeros.data(), zeros.size(), 3));
  ZSTD_freeCCtx(context);
  ASSERT_LT(bomb.size(), std::size_t{100000});
  test::write_file(dir / "bomb.zst", bomb);
  auto in = open_input((dir / "bomb.zst").string());
  const std::size_t got = read_all(*in).size();
  EXPECT_GT(got, DecompressionLimit::kFreeBytes);
  EXPECT_LT(got, zeros.size());
  CollectingDiagnostics diagnostics;
  EXPECT_THROW(in->report_damage(diagnostics), InputError);
}

TEST(InputStream, DirectoryIsNamed) {
  const ScratchDir dir;
  try {
    open_input(dir.path().string());
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), dir.path().string() + ": is a directory, not a trace");
  }
}

TEST(InputStream, ReadsLinesWithAndWithoutFinalNewline) {
  const ScratchDir dir;
  test::write_file(dir / "t", "first\n\nthird");
  auto in = open_input((dir / "t").string());
  EXPECT_EQ(in->read_line(), "first");
  EXPECT_EQ(in->read_line(), "");
  EXPECT_EQ(in->read_line(), "third");
  EXPECT_EQ(in->line_number(), 3U);
  EXPECT_FALSE(in->read_line().has_value());
}

TEST(InputStream, OverlongLineIsAnErrorNamingTheLine) {
  const ScratchDir dir;
  test::write_file(dir / "t", "ok\n" + std::string(5000, 'x') + "\n");
  auto in = open_input((dir / "t").string());
  EXPECT_EQ(in->read_line(1000), "ok");
  try {
    in->read_line(1000);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.position(), 2U);
    EXPECT_NE(std::string(error.what()).find(":2: line longer than"), std::string::npos);
  }
}

TEST(InputStream, MissingFileNamesIt) {
  try {
    open_input("/nonexistent/rtrace/file");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/rtrace/file"), std::string::npos);
  }
}

// A named pipe is read, not mapped: all of it arrives, and it cannot be read again.
TEST(InputStream, ReadsANamedPipe) {
  const ScratchDir dir;
  const std::string text = sample_text();
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    for (std::size_t at = 0; fd >= 0 && at < text.size();) {
      const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
      if (n <= 0) {
        break;
      }
      at += static_cast<std::size_t>(n);
    }
    ::close(fd);
  });
  auto in = open_input(fifo.string());
  EXPECT_EQ(in->read_again(), nullptr);
  EXPECT_EQ(read_all(*in), text);
  writer.join();
  CollectingDiagnostics diagnostics;
  EXPECT_NO_THROW(in->report_damage(diagnostics));
}

// A plain file is mapped: a second reading starts over the same mapping, apart from the first.
TEST(InputStream, ReadsAMappedFileAgain) {
  const ScratchDir dir;
  const std::string text = sample_text();
  test::write_file(dir / "plain", text);
  auto in = open_input((dir / "plain").string());
  ASSERT_EQ(in->read_line(), "line 0");
  auto again = in->read_again();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->name(), (dir / "plain").string());
  EXPECT_EQ(read_all(*again), text);
  EXPECT_EQ(in->read_line(), "line 1");
  EXPECT_EQ(in->offset(), 14U);
}

// A plain file is mapped and says so (the fast leaks scan walks that mapping); a pipe is not.
TEST(InputStream, AMappedFileGivesItsMapping) {
  const ScratchDir dir;
  test::write_file(dir / "plain", "0123456789");
  auto in = open_input((dir / "plain").string());
  ASSERT_NE(in->mapping(), nullptr);
  EXPECT_EQ(in->mapping()->size(), 10U);
  EXPECT_EQ(in->read_again()->mapping(), in->mapping());
  InputStream piped(std::make_unique<MemorySource>(std::string("0123456789")), "piped");
  EXPECT_EQ(piped.mapping(), nullptr);
}

// Bytes in memory are read where they lie (no copy), to their end, as a plain file is.
TEST(InputStream, ReadsBytesInMemoryWhereTheyLie) {
  const std::string text = sample_text();
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()),
                                            text.size());
  InputStream in(bytes, "memory");
  EXPECT_EQ(in.name(), "memory");
  EXPECT_EQ(in.peek(4).data(), bytes.data());
  EXPECT_EQ(in.peek(4).size(), text.size());  // everything is there at once
  EXPECT_EQ(in.read_line(), "line 0");
  EXPECT_EQ(in.offset(), 7U);
  EXPECT_EQ(in.peek(1).data(), bytes.data() + 7);
  EXPECT_EQ(read_all(in), text.substr(7));
  EXPECT_TRUE(in.at_end());
  EXPECT_EQ(in.read_line(), std::nullopt);
  EXPECT_EQ(in.mapping(), nullptr);
  EXPECT_EQ(in.read_again(), nullptr);
  CollectingDiagnostics diagnostics;
  EXPECT_NO_THROW(in.report_damage(diagnostics));
  EXPECT_EQ(diagnostics.text(), "");

  InputStream last(bytes.last(12), "last");
  EXPECT_EQ(last.read_line(), "line 199999");
  EXPECT_EQ(last.read_line(), std::nullopt);
  InputStream cut(bytes.first(4), "cut");  // a last line without its newline
  EXPECT_EQ(cut.read_line(), "line");
  EXPECT_EQ(cut.line_number(), 1U);
  InputStream empty(std::span<const std::uint8_t>(), "empty");
  EXPECT_TRUE(empty.at_end());
  EXPECT_EQ(empty.read_line(), std::nullopt);
}

TEST(InputStream, EmptyFile) {
  const ScratchDir dir;
  test::write_file(dir / "empty", "");
  auto in = open_input((dir / "empty").string());
  EXPECT_TRUE(in->at_end());
  EXPECT_EQ(in->read_line(), std::nullopt);
  CollectingDiagnostics diagnostics;
  EXPECT_NO_THROW(in->report_damage(diagnostics));
}

// Truncated while read: the input ends where the file now ends, and report_damage() says so
// with the file's name and that offset.
TEST(InputStream, MappedFileTruncatedWhileReadEndsThere) {
  const ScratchDir dir;
  std::string text;
  while (text.size() < (std::size_t{40} << 20)) {  // more than one window of the mapping
    text += sample_text();
  }
  const auto path = dir / "plain";
  test::write_file(path, text);
  auto in = open_input(path.string());
  ASSERT_EQ(in->read_line(), "line 0");
  const std::size_t cut = (std::size_t{20} << 20) + 5;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(cut)), 0);
  ::close(fd);
  // The cut lies beyond the first window (vouched for before it), so that everything read is the
  // file's, and the input ends exactly at the cut.
  const std::string rest = read_all(*in);
  EXPECT_EQ(in->offset(), cut);
  EXPECT_TRUE(rest == text.substr(7, cut - 7));
  CollectingDiagnostics diagnostics;
  try {
    in->report_damage(diagnostics);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), path.string());
    EXPECT_EQ(error.position(), cut);
    EXPECT_NE(std::string(error.what()).find("file truncated while being read"), std::string::npos);
  }
}

}  // namespace
}  // namespace rtrace
