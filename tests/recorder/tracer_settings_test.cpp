#include "recorder/tracer_settings.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "tracer/core/options.h"

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
  s.compact = true;
  s.compress_level = 3;
  s.managed = "/tmp/out dir";
  s.audit_patterns = "g_*:gtk_widget_show";
  EXPECT_EQ(format_tracer_options(s),
            "depth=0,start=1,signal=12,free-backtraces=1,timestamps=0,buffered=0,follow-forks=1,"
            "args=1,sizes=100;4096,compact=1,compress=3,audit=g_*:gtk_widget_show,"
            "managed=/tmp/out dir");
  s.compress_level = 0;  // uncompressed: not said
  EXPECT_EQ(format_tracer_options(s).find("compress"), std::string::npos);
}

// The attachment directory (beside the traces): a name with a comma cannot be said, and then
// only the attachments are lost, not the trace.
TEST(TracerSettings, TheAttachmentDirectoryIsSaidWhenItCanBe) {
  TracerSettings s;
  s.attachments = "/tmp/out dir";
  const std::string said = format_tracer_options(s);
  EXPECT_TRUE(said.ends_with(",args=0,attachments=/tmp/out dir")) << said;
  EXPECT_STREQ(tracer::parse_options(said.c_str()).attachment_dir, "/tmp/out dir");
  EXPECT_STREQ(tracer::parse_options(said.c_str()).attachment_directory(), "/tmp/out dir");
  s.attachments = "/tmp/a,b";
  EXPECT_TRUE(format_tracer_options(s).ends_with(",args=0")) << format_tracer_options(s);
  EXPECT_EQ(tracer::parse_options("start=1").attachment_directory(), nullptr);
  EXPECT_STREQ(tracer::parse_options("managed=/m").attachment_directory(), "/m");
}

TEST(TracerSettings, AManagedDirectoryWithACommaCannotBeSaid) {
  TracerSettings s;
  s.managed = "/tmp/a,b";
  EXPECT_THROW(format_tracer_options(s), std::invalid_argument);
}

// What the recorder writes is what the tracer reads (the tracer's own parser,
// tracer/core/options.cpp).
TEST(TracerSettings, TheTracerReadsWhatTheRecorderWrites) {
  TracerSettings s;
  s.depth = tracer::TracerOptions::kMaxDepth;
  s.start = true;
  s.signal = 12;
  s.free_backtraces = true;
  s.timestamps = false;
  s.sizes = {100, 4096};
  s.buffered = false;
  s.follow_forks = true;
  s.arguments = true;
  s.compact = true;
  s.compress_level = 19;
  s.managed = "/tmp/out dir";
  s.audit_patterns = "g_*:gtk_widget_show";
  const tracer::TracerOptions read = tracer::parse_options(format_tracer_options(s).c_str());
  EXPECT_EQ(read.depth, tracer::TracerOptions::kMaxDepth);
  EXPECT_TRUE(read.start);
  EXPECT_EQ(read.toggle_signal, 12);
  EXPECT_TRUE(read.free_backtraces);
  EXPECT_FALSE(read.timestamps);
  ASSERT_EQ(read.size_count, 2U);
  EXPECT_EQ(read.sizes[0], 100U);
  EXPECT_EQ(read.sizes[1], 4096U);
  EXPECT_FALSE(read.buffered);
  EXPECT_TRUE(read.follow_forks);
  EXPECT_TRUE(read.args);
  EXPECT_TRUE(read.compact);
  EXPECT_EQ(read.compress_level, 19);
  EXPECT_STREQ(read.managed_dir, "/tmp/out dir");
  EXPECT_STREQ(read.audit_patterns, "g_*:gtk_widget_show");
}

// Audit patterns the tracer could not read back (',' separates the keys; longer than it keeps)
// are refused.
TEST(TracerSettings, AuditPatternsWithACommaOrTooLongAreRefused) {
  TracerSettings s;
  s.audit_patterns = "g_*,gtk_*";
  EXPECT_THROW(format_tracer_options(s), std::invalid_argument);
  s.audit_patterns = std::string(tracer::TracerOptions::kMaxAuditPatterns, 'x');
  EXPECT_THROW(format_tracer_options(s), std::invalid_argument);
}

// A depth the tracer would cut is refused, never cut silently.
TEST(TracerSettings, ADepthBeyondTheTracersIsRefused) {
  TracerSettings s;
  s.depth = tracer::TracerOptions::kMaxDepth + 1;
  EXPECT_THROW(format_tracer_options(s), std::invalid_argument);
}

}  // namespace
}  // namespace rtrace::recorder
