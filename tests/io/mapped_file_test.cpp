#include "io/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <string>

#include "support/address_sanitizer.h"
#include "support/test_paths.h"

namespace rtrace {
namespace {

using test::ScratchDir;

// Bytes that differ from page to page and from zero, so that a wrong or zeroed page shows.
std::string pattern(std::size_t size) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  }
  return bytes;
}

std::string as_string(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Cuts the file short through a descriptor of its own, as another process would.
void truncate_elsewhere(const std::filesystem::path& path, off_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, size), 0);
  ::close(fd);
}

TEST(MappedFile, MapsTheWholeFile) {
  const ScratchDir dir;
  const std::string bytes = pattern(3 * 4096 + 123);
  test::write_file(dir / "file", bytes);
  const auto mapped = MappedFile::map((dir / "file").string());
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(mapped->name(), (dir / "file").string());
  EXPECT_EQ(mapped->size(), bytes.size());
  EXPECT_EQ(mapped->readable(0, bytes.size()), bytes.size());
  EXPECT_EQ(mapped->readable(100, 1 << 20), bytes.size() - 100);
  EXPECT_EQ(mapped->readable(bytes.size(), 10), 0U);
  EXPECT_EQ(as_string(mapped->bytes()), bytes);
  EXPECT_FALSE(mapped->truncated_at());
}

// A file of no size is read instead (the reader then finds it empty, or finds what /proc gives).
TEST(MappedFile, AFileOfNoSizeIsNotMapped) {
  const ScratchDir dir;
  test::write_file(dir / "empty", "");
  EXPECT_EQ(MappedFile::map((dir / "empty").string()), nullptr);
  EXPECT_EQ(MappedFile::map("/proc/self/maps"), nullptr);
}

TEST(MappedFile, OnlyRegularFilesAreMapped) {
  const ScratchDir dir;
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  EXPECT_EQ(MappedFile::map(pipe_fds[0], "<pipe>"), nullptr);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  EXPECT_EQ(MappedFile::map(dir.path().string()), nullptr);
  EXPECT_EQ(MappedFile::map((dir / "missing").string()), nullptr);
}

TEST(MappedFile, KeepsTheDescriptorItWasGivenOpen) {
  const ScratchDir dir;
  test::write_file(dir / "file", "abc");
  const int fd = ::open((dir / "file").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  {
    const auto mapped = MappedFile::map(fd, "file");
    ASSERT_NE(mapped, nullptr);
    EXPECT_EQ(as_string(mapped->bytes()), "abc");
  }
  char byte = 0;
  EXPECT_EQ(::pread(fd, &byte, 1, 1), 1);  // still open after the mapping went
  EXPECT_EQ(byte, 'b');
  ::close(fd);
}

// Truncated while mapped: the bytes before the cut are the file's, a read of a page cut off
// gives zeros instead of SIGBUS, and readable() says where the file ends now.
TEST(MappedFile, TruncatedWhileMappedIsFoundAtItsOffset) {
  const ScratchDir dir;
  const std::string bytes = pattern(64 * 4096 + 10);
  test::write_file(dir / "file", bytes);
  const auto mapped = MappedFile::map((dir / "file").string());
  ASSERT_NE(mapped, nullptr);
  ASSERT_EQ(mapped->readable(0, bytes.size()), bytes.size());
  const std::uint64_t cut = 10 * 4096 + 1000;
  truncate_elsewhere(dir / "file", static_cast<off_t>(cut));

  // A page past the cut: without the guard this read would kill the test with SIGBUS.
  const volatile std::uint8_t* far = mapped->bytes().data() + 40 * 4096 + 5;
  EXPECT_EQ(*far, 0);
  EXPECT_EQ(mapped->readable(0, bytes.size()), cut);
  EXPECT_EQ(mapped->readable(cut - 10, 100), 10U);
  EXPECT_EQ(mapped->readable(cut, 100), 0U);
  EXPECT_EQ(mapped->truncated_at(), cut);
  EXPECT_EQ(as_string(mapped->bytes().first(cut)), bytes.substr(0, cut));
  EXPECT_EQ(mapped->truncation_message(),
            "file truncated while being read (it had " + std::to_string(bytes.size()) + " bytes)");
}

// A fault found by the handler counts even when the file has grown back since.
TEST(MappedFile, FaultIsNotedEvenWhenTheFileGrewBack) {
  const ScratchDir dir;
  const std::string bytes = pattern(16 * 4096);
  test::write_file(dir / "file", bytes);
  const auto mapped = MappedFile::map((dir / "file").string());
  ASSERT_NE(mapped, nullptr);
  truncate_elsewhere(dir / "file", 4096);
  const volatile std::uint8_t* cut_off = mapped->bytes().data() + 9 * 4096;
  EXPECT_EQ(*cut_off, 0);
  truncate_elsewhere(dir / "file", static_cast<off_t>(bytes.size()));
  EXPECT_EQ(mapped->readable(0, bytes.size()), 9U * 4096);
  EXPECT_EQ(mapped->truncated_at(), 9U * 4096);
}

// Several files at once, each with its own truncation.
TEST(MappedFile, MappingsAreGuardedApart) {
  const ScratchDir dir;
  const std::string bytes = pattern(8 * 4096);
  test::write_file(dir / "a", bytes);
  test::write_file(dir / "b", bytes);
  const auto a = MappedFile::map((dir / "a").string());
  const auto b = MappedFile::map((dir / "b").string());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  truncate_elsewhere(dir / "b", 4096);
  const volatile std::uint8_t* in_b = b->bytes().data() + 5 * 4096;
  EXPECT_EQ(*in_b, 0);
  EXPECT_EQ(a->readable(0, bytes.size()), bytes.size());
  EXPECT_EQ(as_string(a->bytes()), bytes);
  EXPECT_FALSE(a->truncated_at());
  EXPECT_EQ(b->readable(0, bytes.size()), 4096U);
}

// A sparse 6 GiB file: mapped whole, its last bytes read without reading the rest.
TEST(MappedFile, HugeFile) {
  const ScratchDir dir;
  const std::uint64_t size = std::uint64_t{6} << 30;
  const int fd = ::open((dir / "huge").c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  ASSERT_EQ(::pwrite(fd, "tail", 4, static_cast<off_t>(size - 4)), 4);
  const auto mapped = MappedFile::map(fd, "huge");
  ::close(fd);
  ASSERT_NE(mapped, nullptr);
  EXPECT_EQ(mapped->size(), size);
  EXPECT_EQ(mapped->readable(size - 4096, 4096), 4096U);
  EXPECT_EQ(as_string(mapped->bytes().last(4)), "tail");
  EXPECT_EQ(mapped->bytes()[size / 2], 0);
}

// A SIGBUS that is not about a live mapping still goes where it went before: the default action
// (or ASan's report under ASan). Here a page of a file truncated under a mapping of its own,
// outside MappedFile.
TEST(MappedFileDeathTest, OtherFaultsStillKill) {
  const ScratchDir dir;
  test::write_file(dir / "guarded", pattern(4096));
  test::write_file(dir / "raw", pattern(4 * 4096));
  const auto fault_elsewhere = [&] {
    const auto guarded = MappedFile::map((dir / "guarded").string());  // installs the handler
    const int fd = ::open((dir / "raw").c_str(), O_RDWR | O_CLOEXEC);
    void* raw = ::mmap(nullptr, 4 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (guarded == nullptr || raw == MAP_FAILED || ::ftruncate(fd, 0) != 0) {
      std::_Exit(3);
    }
    const volatile std::uint8_t* cut_off = static_cast<const std::uint8_t*>(raw) + 2 * 4096;
    std::_Exit(*cut_off);
  };
#ifdef RTRACE_UNDER_ASAN
  // ASan ends the process with exit status 1, or with SIGABRT under abort_on_error=1 (as
  // `make check-sanitize` runs it): either way it died of the fault, which was not swallowed.
  const auto died_of_the_fault = [](int status) {
    return (WIFEXITED(status) && WEXITSTATUS(status) == 1) ||
           (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  };
  EXPECT_EXIT(fault_elsewhere(), died_of_the_fault, "AddressSanitizer: BUS");
#else
  EXPECT_EXIT(fault_elsewhere(), ::testing::KilledBySignal(SIGBUS), "");
#endif
}

// The handler installed before is called for a SIGBUS that is not about a live mapping. The
// child runs in a fresh process (threadsafe death tests re-execute the test program), so that
// MappedFile's handler is installed after this one.
TEST(MappedFileDeathTest, OtherSignalsGoToThePreviousHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const ScratchDir dir;
  test::write_file(dir / "file", pattern(4096));
  EXPECT_EXIT(
      {
        struct sigaction mine {};
        mine.sa_handler = [](int) { std::_Exit(42); };
        sigemptyset(&mine.sa_mask);
        if (::sigaction(SIGBUS, &mine, nullptr) != 0) {
          std::_Exit(3);
        }
        const auto mapped = MappedFile::map((dir / "file").string());
        if (mapped == nullptr) {
          std::_Exit(4);
        }
        ::raise(SIGBUS);
        std::_Exit(5);
      },
      ::testing::ExitedWithCode(42), "");
}

}  // namespace
}  // namespace rtrace
