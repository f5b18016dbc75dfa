// A number of bytes as a command line gives it: digits with an optional binary unit, K, KiB, M,
// MiB, G or GiB (512K = 524288), case-insensitive.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rtrace::cli {

// The bytes `text` says, or nothing when it is not such a number or does not fit 64 bits.
std::optional<std::uint64_t> parse_byte_count(std::string_view text);

}  // namespace rtrace::cli
