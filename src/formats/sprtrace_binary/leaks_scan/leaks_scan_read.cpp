#include "formats/sprtrace_binary/leaks_scan/leaks_scan_read.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/sprtrace_binary/binary_reader.h"
#include "formats/sprtrace_binary/leaks_scan/leaks_scan.h"
#include "io/mapped_file.h"
#include "io/progress.h"

namespace rtrace {
namespace {

// What the second pass reads: the kept stretches joined, and where each came from.
struct KeptStretches {
  std::string name;   // the input's name in messages
  std::string bytes;  // the kept stretches, in file order
  std::vector<LeaksScanPiece> pieces;
  std::vector<std::uint64_t> starts;  // where each piece starts in `bytes`
  std::uint64_t file_size = 0;
};

// The kept pieces, copied from the mapping and joined.
void copy_pieces(const MappedFile& mapped, KeptStretches& input) {
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
std::uint64_t file_offset(const KeptStretches& input, std::uint64_t joined) {
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
  FileOffsets(const KeptStretches& input, Diagnostics& target) : input_(input), target_(target) {}

 protected:
  void report(std::string_view file, std::uint64_t position, std::string_view message) override {
    target_.warning(file, file_offset(input_, position), message);
  }

 private:
  const KeptStretches& input_;
  Diagnostics& target_;
};

// Gives each call of the second pass its index in the file; a routing call goes on as one that
// cannot leak (kind Other, no arguments nor backtrace).
class TrueIndices final : public ForwardingSink {
 public:
  TrueIndices(const KeptStretches& input, TraceSink& next) : ForwardingSink(next), input_(input) {}

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
  const KeptStretches& input_;
  std::size_t piece_ = 0;
};

// The joined bytes, read where they lie.
std::unique_ptr<InputStream> joined_stream(const KeptStretches& input) {
  const std::span<const std::uint8_t> bytes(
      reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size());
  return std::make_unique<InputStream>(bytes, input.name);
}

// The second pass with nowhere to deliver: whether the packets the scan did not check decode.
bool decodes(const KeptStretches& input) {
  DiscardingSink nowhere;
  CollectingDiagnostics quiet;
  try {
    read_sprtrace_binary(*joined_stream(input), nowhere, quiet);
  } catch (const InputError&) {
    return false;
  }
  return true;
}

class KeptStretchesRead final : public LeaksScanRead {
 public:
  explicit KeptStretchesRead(KeptStretches input) : input_(std::move(input)) {}

  std::vector<Mapping> late_maps() const override { return read_late_maps(*joined_stream(input_)); }

  void read(TraceSink& sink, Diagnostics& diagnostics) const override {
    TrueIndices indices(input_, sink);
    FileOffsets offsets(input_, diagnostics);
    read_sprtrace_binary(*joined_stream(input_), indices, offsets);
  }

  std::uint64_t end_offset() const override { return input_.file_size; }

 private:
  KeptStretches input_;
};

}  // namespace

std::unique_ptr<LeaksScanRead> scan_sprtrace_binary_leaks(const InputStream& trace,
                                                          bool show_progress) {
  MappedFile* const mapped = trace.mapping();
  if (mapped == nullptr) {
    return nullptr;  // standard input, a pipe, a compressed file: read the general way
  }
  Progress progress("reading " + trace.name(), mapped->size(), show_progress);
  std::optional<LeaksScan> scan = scan_binary_leaks(*mapped, kMaxKeptBytes, &progress);
  progress.finish();
  if (!scan) {
    return nullptr;
  }
  KeptStretches input;
  input.name = trace.name();
  input.pieces = std::move(scan->pieces);
  input.file_size = scan->file_size;
  copy_pieces(*mapped, input);
  // Bytes of a file cut short after the scan may have been copied as zeros: asked again, the
  // mapping says so, and the general path reports the truncation.
  if (mapped->readable(0, mapped->size()) < mapped->size() || !decodes(input)) {
    return nullptr;
  }
  return std::make_unique<KeptStretchesRead>(std::move(input));
}

}  // namespace rtrace
