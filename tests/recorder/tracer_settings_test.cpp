#include "recorder/tracer_settings.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace rtrace::recorder {
namespace {

TEST(TracerSettings, DefaultsAreTheOriginals) {
  EXPECT_EQ(format_tracer_options({}),
            "depth=10,start=0,signal=10,free-backtraces=0,timestamps=1,buffered=1,follow-forks=0,"
            "args=0");
}

TEST(TracerSettings, EveryOptionHasItsKey) {
  TracerSettings s;
  s.depth = 0;
  s.start = true;
  s.signal = 12;
  s.free_backtraces = true;
  s.timestamps = false;
  s.sizes = {100, 4096};
  s.buffered = false;
  s.follow_forks = true;
  s.arguments = true;
  s.managed = "/tmp/out dir";
  EXPECT_EQ(format_tracer_options(s),
            "depth=0,start=1,signal=12,free-backtraces=1,timestamps=0,buffered=0,follow-forks=1,"
            "args=1,sizes=100;4096,managed=/tmp/out dir");
}

TEST(TracerSettings, AManagedDirectoryWithACommaCannotBeSaid) {
  TracerSettings s;
  s.managed = "/tmp/a,b";
  EXPECT_THROW(format_tracer_options(s), std::invalid_argument);
}

}  // namespace
}  // namespace rtrace::recorder
