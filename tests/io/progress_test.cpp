// The progress line itself, drawn into a pipe: what it says, how often, and that it is cleared.
#include "io/progress.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>

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

// The tests give the times themselves: on a loaded machine the real clock could pass a redraw
// between two advances meant to be "too soon", or stretch the rate.
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
const Clock::time_point kStart = Clock::time_point{} + std::chrono::hours(1);

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

TEST(Progress, SaysBytesOfTheTotalAndTheRateThenClears) {
  Pipe pipe;
  {
    Progress progress("reading churn.raw", 4 * kMiB, true, pipe.writer(), kStart);
    progress.advance(kMiB, kStart + milliseconds(99));  // too soon: the first line waits 0.1 s
    progress.advance(kMiB, kStart + milliseconds(125));
    progress.advance(512, kStart + milliseconds(224));  // too soon after the last line
  }
  EXPECT_EQ(pipe.drain(),
            "\r\033[Krtrace: reading churn.raw: 2.0 MiB of 4.0 MiB (50%), 16.0 MiB/s\r\033[K");
}

TEST(Progress, WithoutATotalOnlyTheBytesAndTheRate) {
  Pipe pipe;
  Progress progress("recording", std::nullopt, true, pipe.writer(), kStart);
  progress.advance(100, kStart + milliseconds(200));
  progress.interrupt();  // a message comes: the line goes, and comes back at the next redraw
  progress.advance(100, kStart + milliseconds(400));
  progress.finish();
  progress.advance(100, kStart + milliseconds(600));  // after the end: nothing
  EXPECT_EQ(pipe.drain(),
            "\r\033[Krtrace: recording: 100 B, 500 B/s\r\033[K"
            "\r\033[Krtrace: recording: 200 B, 500 B/s\r\033[K");
}

TEST(Progress, DrawnOnlyWhileAllowedAndStillCounting) {
  Pipe pipe;
  bool allowed = true;
  Progress progress("recording", std::nullopt, true, pipe.writer(), kStart);
  progress.draw_only_while([&allowed] { return allowed; });
  progress.advance(100, kStart + milliseconds(200));
  allowed = false;  // the line on screen goes at the next redraw, and no line comes back
  progress.advance(100, kStart + milliseconds(400));
  progress.advance(100, kStart + milliseconds(600));
  allowed = true;  // the bytes of meanwhile were counted
  progress.advance(100, kStart + milliseconds(800));
  progress.finish();
  EXPECT_FALSE(progress.active());
  EXPECT_EQ(pipe.drain(),
            "\r\033[Krtrace: recording: 100 B, 500 B/s"
            "\r\033[K"
            "\r\033[Krtrace: recording: 400 B, 500 B/s\r\033[K");
}

TEST(Progress, NotWantedShowsNothing) {
  Pipe pipe;
  {
    Progress progress("reading x", 10, false, pipe.writer(), kStart);
    progress.advance(5, kStart + milliseconds(200));
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
