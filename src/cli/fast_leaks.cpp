#include "cli/fast_leaks.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>

#include "formats/format_registry.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "io/input_stream.h"
#include "io/mapped_file.h"
#include "io/progress.h"

namespace rtrace::cli {
namespace {

// The kept pieces, copied from the mapping and joined.
void copy_pieces(const MappedFile& mapped, FastLeaksInput& input) {
  std::uint64_t total = 0;
  for (const LeaksScanPiece& piece : input.pieces) {
    input.starts.push_back(total);
    total += piece.length;
  }
  input.bytes.resize(total);
  const std::uint8_t* file = mapped.bytes().data();
  for (std::size_t i = 0; i < input.pieces.size(); ++i) {
    std::memcpy(input.bytes.data() + input.starts[i], file + input.pieces[i].offset,
                input.pieces[i].length);  // never empty: a piece is at least a packet header
  }
}

// The offset in the file of an offset in the joined bytes.
std::uint64_t file_offset(const FastLeaksInput& input, std::uint64_t joined) {
  const auto after = std::ranges::upper_bound(input.starts, joined);
  if (after == input.starts.begin()) {
    return joined;
  }
  const auto i = static_cast<std::size_t>(after - input.starts.begin() - 1);
  return input.pieces[i].offset + (joined - input.starts[i]);
}

// Warnings of the second pass, at their offsets in the file.
class FileOffsets final : public Diagnostics {
 public:
  FileOffsets(const FastLeaksInput& input, Diagnostics& target) : input_(input), target_(target) {}

 protected:
  void report(std::string_view file, std::uint64_t position, std::string_view message) override {
    target_.warning(file, file_offset(input_, position), message);
  }

 private:
  const FastLeaksInput& input_;
  Diagnostics& target_;
};

// Gives each call of the second pass its index in the file; a routing call goes on as one that
// cannot leak (kind Other, no arguments nor backtrace).
class TrueIndices final : public ForwardingSink {
 public:
  TrueIndices(const FastLeaksInput& input, TraceSink& next) : ForwardingSink(next), input_(input) {}

  void call(const CallRecord& record) override {
    while (piece_ < input_.pieces.size() && input_.pieces[piece_].call_index == 0) {
      ++piece_;
    }
    const LeaksScanPiece& piece = input_.pieces.at(piece_++);
    CallRecord call = record;
    call.call.index = piece.call_index;
    if (piece.routing_only) {
      call.call.kind = CallKind::Other;
      call.arguments = {};
      call.frames = {};
    }
    next().call(call);
  }

 private:
  const FastLeaksInput& input_;
  std::size_t piece_ = 0;
};

// The joined bytes, read where they lie.
std::unique_ptr<InputStream> joined_stream(const FastLeaksInput& input) {
  const std::span<const std::uint8_t> bytes(
      reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size());
  return std::make_unique<InputStream>(bytes, input.name);
}

// The second pass with nowhere to deliver: whether the packets the scan did not check decode.
bool decodes(const FastLeaksInput& input) {
  DiscardingSink nowhere;
  CollectingDiagnostics quiet;
  try {
    read_sprtrace_binary(*joined_stream(input), nowhere, quiet);
  } catch (const InputError&) {
    return false;
  }
  return true;
}

}  // namespace

bool fast_leaks_applies(const ProcessOptions& o) {
  const char* disabled = std::getenv("RTRACE_NO_FAST_PATH");
  if (disabled != nullptr && *disabled != '\0' && std::string_view(disabled) != "0") {
    return false;
  }
  return o.leaks && !o.context_mask && !o.resource_mask && !o.include_file && !o.exclude_file &&
         !o.call_address;
}

std::optional<FastLeaksInput> prepare_fast_leaks(const InputStream& trace, bool show_progress) {
  MappedFile* const mapped = trace.mapping();
  if (mapped == nullptr) {
    return std::nullopt;  // standard input, a pipe, a compressed file: read the general way
  }
  Progress progress("reading " + trace.name(), mapped->size(), show_progress);
  std::optional<LeaksScan> scan = scan_binary_leaks(*mapped, kMaxKeptBytes, &progress);
  progress.finish();
  if (!scan) {
    return std::nullopt;
  }
  FastLeaksInput input;
  input.name = trace.name();
  input.pieces = std::move(scan->pieces);
  input.file_size = scan->file_size;
  copy_pieces(*mapped, input);
  // Bytes of a file cut short after the scan may have been copied as zeros: asked again, the
  // mapping says so, and the general path reports the truncation.
  if (mapped->readable(0, mapped->size()) < mapped->size() || !decodes(input)) {
    return std::nullopt;
  }
  return input;
}

std::vector<Mapping> fast_late_maps(const FastLeaksInput& input) {
  return read_late_maps(*joined_stream(input));
}

void read_fast_leaks(const FastLeaksInput& input, TraceSink& sink, Diagnostics& diagnostics) {
  TrueIndices indices(input, sink);
  FileOffsets offsets(input, diagnostics);
  read_sprtrace_binary(*joined_stream(input), indices, offsets);
}

}  // namespace rtrace::cli
