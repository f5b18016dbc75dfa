#include "recorder/toggle.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

namespace rtrace::recorder {
namespace {

TEST(ParseSignal, NumbersAndNames) {
  EXPECT_EQ(parse_signal("12"), 12);
  EXPECT_EQ(parse_signal("SIGUSR2"), SIGUSR2);
  EXPECT_EQ(parse_signal("usr1"), SIGUSR1);
  EXPECT_EQ(parse_signal("SigProf"), SIGPROF);
  EXPECT_EQ(parse_signal("0"), std::nullopt);
  EXPECT_EQ(parse_signal("-3"), std::nullopt);
  EXPECT_EQ(parse_signal("12x"), std::nullopt);
  EXPECT_EQ(parse_signal("SIGNOPE"), std::nullopt);
  EXPECT_EQ(parse_signal(""), std::nullopt);
}

TEST(Descendants, FindsChildrenAndGrandchildren) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child forks a grandchild; both then sleep until killed.
    if (::fork() == 0) {
      ::close(ready[1]);
      ::pause();
      ::_exit(0);
    }
    [[maybe_unused]] const ssize_t n = ::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);

  const std::vector<pid_t> found = descendants(::getpid());
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[0], child);
  const std::vector<pid_t> grandchildren = descendants(child);
  ASSERT_EQ(grandchildren.size(), 1U);
  EXPECT_EQ(found[1], grandchildren[0]);

  ::kill(grandchildren[0], SIGKILL);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(ToggleTracing, RefusesAProcessThatIsNotTraced) {
  EXPECT_FALSE(is_traced(::getpid()));
  EXPECT_THROW(toggle_tracing(::getpid(), SIGUSR1, false), std::runtime_error);
}

}  // namespace
}  // namespace rtrace::recorder
