// Regression tests for undefined behaviour found by UBSan in hostile and real input. This program
// is built with -fsanitize=undefined -fno-sanitize-recover=all (tests/io/CMakeLists.txt), so any
// undefined behaviour in the code under test aborts it.
#include <gtest/gtest.h>

#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "formats/sprtrace_text/header_line.h"
#include "protocol/sprtrace_packet_cursor.h"

namespace rtrace {
namespace {

// The recorder writes a BTRC with no frames for a call without backtrace; its frames go into an
// empty vector, whose data() is null: memcpy must not be called with it.
TEST(UbsanFindings, BacktraceWithoutFramesCopiesNothing) {
  const std::array<std::uint8_t, 8> packet{};
  sprtrace::PacketCursor cursor(packet, sprtrace::Layout{}, 0);
  Address* no_frames = nullptr;
  cursor.pointers(0, no_frames);
  EXPECT_EQ(cursor.remaining(), packet.size());
}

// A year of INT_MIN in the header's timestamp once overflowed `year - 1900`.
TEST(UbsanFindings, NegativeHeaderYearIsNotADate) {
  sprtrace_text::HeaderFields fields;
  const std::string line = "version=2.0, arch=x86_64, timestamp=" + std::to_string(INT_MIN) +
                           ".01.01 00:00:00, process=./p, pid=1";
  EXPECT_EQ(sprtrace_text::parse_header_line(line, fields), "");
  EXPECT_EQ(fields.header.metadata.get(sprtrace_text::kTimestampKey),
            std::to_string(INT_MIN) + ".01.01 00:00:00");
  EXPECT_EQ(fields.process.start.seconds, TimeOfDay{}.seconds);
}

}  // namespace
}  // namespace rtrace
