// Whether bytes look like the start of a decompressed apitrace call stream (what a gzip or zstd
// container holds, and what `rtrace process` sees of them once its input layer has undone the
// compression). The stream has no magic number, so this reads its header and first event as far
// as `head` goes and accepts only what apitrace writes there.
#pragma once

#include <cstdint>
#include <span>

namespace rtrace::apitrace {

// `head`: the first bytes of the stream (64 are enough; fewer when the stream is shorter).
bool looks_like_call_stream(std::span<const std::uint8_t> head);

}  // namespace rtrace::apitrace
