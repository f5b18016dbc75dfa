#include "formats/apitrace/stream_sniffer.h"

#include <optional>

#include "formats/apitrace/decoder.h"

namespace rtrace::apitrace {
namespace {

// What the check concludes from the bytes it has read so far.
enum class Verdict : std::uint8_t { Yes, No, OutOfBytes };

class HeadReader {
 public:
  explicit HeadReader(std::span<const std::uint8_t> head) : head_(head) {}

  std::optional<std::uint64_t> uint() {
    std::uint64_t value = 0;
    for (unsigned shift = 0; shift < 64 && at_ < head_.size(); shift += 7) {
      const std::uint8_t b = head_[at_++];
      value |= static_cast<std::uint64_t>(b & 0x7fU) << shift;
      if ((b & 0x80U) == 0) {
        return value;
      }
    }
    return std::nullopt;
  }
  std::optional<std::uint8_t> byte() {
    return at_ < head_.size() ? std::optional(head_[at_++]) : std::nullopt;
  }
  bool at_end() const { return at_ >= head_.size(); }

 private:
  std::span<const std::uint8_t> head_;
  std::size_t at_ = 0;
};

bool is_printable(std::uint8_t c) {
  return c >= 0x20 && c < 0x7f;
}
bool is_name_char(std::uint8_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':';
}

// A string of `length` bytes each passing `ok`, as far as the head goes.
template <typename Ok>
Verdict text(HeadReader& in, std::uint64_t length, Ok ok) {
  for (std::uint64_t i = 0; i < length; ++i) {
    const auto c = in.byte();
    if (!c) {
      return Verdict::OutOfBytes;
    }
    if (!ok(*c)) {
      return Verdict::No;
    }
  }
  return Verdict::Yes;
}

// Version 6 properties: (name, value) pairs of strings up to an empty name. Names are short
// printable keys ("process.name"); values may be anything.
Verdict properties(HeadReader& in) {
  for (;;) {
    const auto name_length = in.uint();
    if (!name_length) {
      return Verdict::OutOfBytes;
    }
    if (*name_length == 0) {
      return Verdict::Yes;
    }
    if (*name_length > 256) {
      return Verdict::No;
    }
    if (const Verdict v = text(in, *name_length, is_printable); v != Verdict::Yes) {
      return v;
    }
    const auto value_length = in.uint();
    if (!value_length) {
      return Verdict::OutOfBytes;
    }
    if (const Verdict v = text(in, *value_length, [](std::uint8_t) { return true; });
        v != Verdict::Yes) {
      return v;
    }
  }
}

// The first event: an enter that defines its function (a name made of identifier characters).
Verdict first_call(HeadReader& in, std::uint64_t version) {
  const auto event = in.byte();
  if (!event) {
    return Verdict::OutOfBytes;
  }
  if (*event != 0x00) {
    return Verdict::No;
  }
  if (version >= 4 && !in.uint()) {
    return Verdict::OutOfBytes;
  }
  if (!in.uint()) {  // function id
    return Verdict::OutOfBytes;
  }
  const auto name_length = in.uint();
  if (!name_length) {
    return Verdict::OutOfBytes;
  }
  if (*name_length == 0 || *name_length > 1024) {
    return Verdict::No;
  }
  return text(in, *name_length, is_name_char);
}

}  // namespace

bool looks_like_call_stream(std::span<const std::uint8_t> head) {
  HeadReader in(head);
  const auto version = in.uint();
  if (!version || *version > Decoder::kMaxVersion) {
    return false;
  }
  if (*version >= 6) {
    const auto semantic = in.uint();
    if (!semantic || *semantic > *version) {
      return false;
    }
    // Properties that fill the whole head are taken as enough evidence, provided that at least
    // one name was read whole (checked by reaching the bytes after it).
    switch (properties(in)) {
      case Verdict::No:
        return false;
      case Verdict::OutOfBytes:
        return head.size() >= 16;
      case Verdict::Yes:
        if (in.at_end()) {
          return true;  // a whole header and not one call
        }
        break;
    }
  }
  // The first call's name, as far as the head shows it; at least a few of its characters.
  const Verdict call = first_call(in, *version);
  return call == Verdict::Yes || (call == Verdict::OutOfBytes && head.size() >= 8);
}

}  // namespace rtrace::apitrace
