// The compressed containers around an apitrace call stream, told apart by their first bytes as
// apitrace does: 'a' 't' = Snappy chunks (the default), 1f 8b = gzip (old traces), the zstd
// magic = zstd, anything else = Brotli (it has no magic number). rtrace also reads a call stream
// that is not compressed at all (Plain): what the gzip and zstd containers hold, as
// `rtrace process` sees them after its input layer has undone the compression.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "formats/apitrace/stream_window.h"
#include "io/diagnostics.h"

namespace rtrace::apitrace {

enum class Container : std::uint8_t { Snappy, Gzip, Zstd, Brotli, Plain };

// The name `apitrace info` gives the container ("ContainerType").
std::string_view container_name(Container container);

struct OpenedTrace {
  std::unique_ptr<StreamWindow> stream;  // the decompressed call stream
  Container container = Container::Snappy;
  std::uint64_t file_size = 0;  // bytes of the file itself (0 for a pipe)
  // Damage in the container ends the stream where it is found, so that everything decompressed
  // before it is still read; once the reader reaches that end, this throws the damage as an
  // InputError (and does nothing after a clean end).
  std::function<void()> check_end;
};

// Opens `path` ("-" = standard input). Throws std::runtime_error when it cannot be opened;
// damage in the container surfaces later, from the stream, as InputError with a file offset.
// `diagnostics` (which must outlive the stream) hears of a salvaged truncated chunk.
OpenedTrace open_trace(const std::string& path, Diagnostics& diagnostics);
// The same over an already open source (tests, pipes); `name` appears in messages.
OpenedTrace open_trace(std::unique_ptr<ByteSource> file, const std::string& name,
                       std::uint64_t file_size, Diagnostics& diagnostics);

// The Snappy container over raw bytes: [ 'a' 't' ] then chunks of [uint32 LE length][raw Snappy
// block]. A chunk cut short by the end of the file is decompressed as far as it goes (as apitrace
// does) and reported as a warning.
std::unique_ptr<ByteSource> make_snappy_chunk_source(std::unique_ptr<ByteSource> file,
                                                     std::string name, Diagnostics& diagnostics);
std::unique_ptr<ByteSource> make_brotli_source(std::unique_ptr<ByteSource> file, std::string name,
                                               Diagnostics& diagnostics);
// Whether `compressed` (the first bytes of a file, as many as there are up to a few hundred KiB)
// is the start of a Brotli stream that decompresses to an apitrace call stream: how a Brotli
// container, which has no magic number, is recognised by content.
bool looks_like_brotli_call_stream(std::span<const std::uint8_t> compressed);

}  // namespace rtrace::apitrace
