#include "io/input_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "io/diagnostics.h"
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

TEST(InputStream, TruncatedGzipIsAnError) {
  const ScratchDir dir;
  test::write_file(dir / "trace", sample_text());
  ASSERT_EQ(run_command("gzip -c '" + (dir / "trace").string() + "' | head -c 5000 > '" +
                        (dir / "cut.gz").string() + "'")
                .status,
            0);
  auto in = open_input((dir / "cut.gz").string());
  EXPECT_THROW(read_all(*in), std::runtime_error);
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

}  // namespace
}  // namespace rtrace
