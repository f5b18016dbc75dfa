// The progress line itself, drawn into a pipe: what it says, how often, and that it is cleared.
#include "io/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <regex>
#include <string>
#include <thread>

namespace rtrace {
namespace {

class Pipe {
 public:
  Pipe() { EXPECT_EQ(::pipe(fds_.data()), 0); }
  ~Pipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int writer() const { return fds_[1]; }
  // What was written so far (the test writes far less than a pipe holds).
  std::string drain() {
    ::close(fds_[1]);
    fds_[1] = -1;
    std::string text;
    std::array<char, 4096> buffer{};
    ssize_t n = 0;
    while ((n = ::read(fds_[0], buffer.data(), buffer.size())) > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(n));
    }
    return text;
  }

 private:
  std::array<int, 2> fds_{-1, -1};
};

void wait_a_redraw() {
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

TEST(Progress, SaysBytesOfTheTotalAndTheRateThenClears) {
  Pipe pipe;
  {
    Progress progress("reading churn.raw", 4 * kMiB, true, pipe.writer());
    progress.advance(kMiB);  // too soon: the first line waits a tenth of a second
    wait_a_redraw();
    progress.advance(kMiB);
    progress.advance(512);  // too soon after the last line
  }
  const std::string text = pipe.drain();
  EXPECT_TRUE(std::regex_match(text, std::regex("\r\033\\[Krtrace: reading churn\\.raw: 2\\.0 MiB "
                                                "of 4\\.0 MiB \\(50%\\), [0-9.]+ MiB/s\r\033\\[K")))
      << text;
}

TEST(Progress, WithoutATotalOnlyTheBytesAndTheRate) {
  Pipe pipe;
  Progress progress("recording", std::nullopt, true, pipe.writer());
  wait_a_redraw();
  progress.advance(100);
  progress.interrupt();  // a message comes: the line goes, and comes back at the next redraw
  wait_a_redraw();
  progress.advance(100);
  progress.finish();
  progress.advance(100);  // after the end: nothing
  const std::string text = pipe.drain();
  EXPECT_TRUE(std::regex_match(text, std::regex("\r\033\\[Krtrace: recording: 100 B, [0-9.]+ "
                                                "[KM]?i?B/s\r\033\\[K"
                                                "\r\033\\[Krtrace: recording: 200 B, [0-9.]+ "
                                                "[KM]?i?B/s\r\033\\[K")))
      << text;
}

TEST(Progress, NotWantedShowsNothing) {
  Pipe pipe;
  {
    Progress progress("reading x", 10, false, pipe.writer());
    wait_a_redraw();
    progress.advance(5);
  }
  EXPECT_EQ(pipe.drain(), "");
}

TEST(Progress, HumanBytes) {
  EXPECT_EQ(progress_bytes(0), "0 B");
  EXPECT_EQ(progress_bytes(1023), "1023 B");
  EXPECT_EQ(progress_bytes(1536), "1.5 KiB");
  EXPECT_EQ(progress_bytes(194128332), "185.1 MiB");
}

}  // namespace
}  // namespace rtrace
