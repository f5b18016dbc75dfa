#include "formats/mpatrol/mpatrol_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "formats/mpatrol/leb128.h"
#include "formats/mpatrol/name_cache.h"

// What mpatrol 1.5.1 really writes, where its manual is silent (fixtures/mpatrol/MANIFEST.md):
//  - The two header words are the writer's size_t and unsigned long in its byte order: 8 bytes
//    each on LP64, 4 on ILP32. The file does not say which; we take the size for which the first
//    word is the byte-order mark 1 and the second a plausible version number.
//  - Name fields: byte 0 = no name; 0x80|k + NUL-terminated string defines slot k (1..32) of that
//    field's cache; k alone refers to slot k.
//  - The end marker is `MTRC` again. mptrace takes any byte other than A R F H I at a record
//    boundary as the start of it.

namespace rtrace::mpatrol {
namespace {

constexpr char kMagic[4] = {'M', 'T', 'R', 'C'};
constexpr std::size_t kMagicSize = sizeof kMagic;
// How much to ask of the input at once; records are decoded in place from each such window.
constexpr std::size_t kReadAhead = std::size_t{256} << 10;
// The longest possible record: tag, five numbers and two names with their cache bytes.
constexpr std::size_t kMaxRecord = 1 + 5 * kMaxLeb128Bytes + 2 * (2 + kMaxNameLength);
static_assert(kMaxRecord < kReadAhead);

// Any version of mpatrol: major 1..99.
constexpr std::uint64_t kLowestVersion = 10000;
constexpr std::uint64_t kHighestVersion = 999999;

std::uint64_t load_word(const std::uint8_t* p, std::size_t size, bool big_endian) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::size_t byte = big_endian ? i : size - 1 - i;
    value = (value << 8) | p[byte];
  }
  return value;
}

std::string version_text(std::uint64_t version) {
  return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

std::string describe_byte(std::uint8_t byte) {
  if (byte >= 0x20 && byte < 0x7F) {
    return fmt::format("{:#04x} '{}'", byte, static_cast<char>(byte));
  }
  return fmt::format("{:#04x}", byte);
}

// The header layout whose byte-order mark is 1 and whose version is plausible, if any.
std::optional<Header> match_header(std::span<const std::uint8_t> bytes, std::uint8_t word_size) {
  if (bytes.size() < kMagicSize + 2 * std::size_t{word_size}) {
    return std::nullopt;
  }
  for (const bool big_endian : {false, true}) {
    if (load_word(bytes.data() + kMagicSize, word_size, big_endian) != 1) {
      continue;
    }
    const std::uint64_t version =
        load_word(bytes.data() + kMagicSize + word_size, word_size, big_endian);
    if (version >= kLowestVersion && version <= kHighestVersion) {
      return Header{.word_size = word_size, .big_endian = big_endian, .version = version};
    }
  }
  return std::nullopt;
}

// A record that does not fit in the bytes at hand.
struct Incomplete {};

class Decoder {
 public:
  Decoder(InputStream& input, Visitor& visitor, Diagnostics& diagnostics)
      : input_(input), visitor_(visitor), diagnostics_(diagnostics) {}

  void run() {
    read_header();
    read_records();
  }

 private:
  void read_header();
  void read_records();
  // Decodes the record at `p` into event_; returns its end. Throws Incomplete or InputError.
  const std::uint8_t* decode_record(const std::uint8_t* p, const std::uint8_t* end,
                                    std::uint64_t offset);
  std::uint64_t number(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t offset,
                       const std::uint8_t* record);
  std::string_view name(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t offset,
                        const std::uint8_t* record, NameCache& cache, const char* what,
                        std::uint64_t& undefined_at);
  void finish_at_marker(std::uint64_t offset);
  void finish_truncated(std::uint64_t offset, std::string_view message);

  [[noreturn]] void fail(std::uint64_t offset, std::string_view message) const {
    throw InputError(input_.name(), offset, message);
  }
  void warn(std::uint64_t offset, std::string_view message) {
    diagnostics_.warning(input_.name(), offset, message);
  }

  InputStream& input_;
  Visitor& visitor_;
  Diagnostics& diagnostics_;
  Header header_;
  Event event_;
  NameCache functions_;
  NameCache files_;
  // References to undefined slots in the record being decoded (warned once it is complete).
  std::uint64_t undefined_function_at_ = 0;
  std::uint64_t undefined_file_at_ = 0;
};

void Decoder::read_header() {
  const auto bytes = input_.peek(kMagicSize + 16);
  if (bytes.size() < kMagicSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    if (bytes.size() < kMagicSize && std::memcmp(bytes.data(), kMagic, bytes.size()) == 0) {
      fail(0, "truncated header (the file ends inside the MTRC magic)");
    }
    fail(0, "not an mpatrol tracing file (it does not start with MTRC)");
  }
  std::optional<Header> header = match_header(bytes, 8);
  if (!header) {
    header = match_header(bytes, 4);
  }
  if (!header) {
    if (bytes.size() < kMagicSize + std::size_t{2} * 8) {
      fail(bytes.size(), "truncated header");
    }
    fail(kMagicSize,
         "unreadable header: neither 4- nor 8-byte words hold the byte-order mark 1 followed by "
         "an mpatrol version number");
  }
  if (header->version / 100 > kNewestVersion / 100) {
    fail(kMagicSize + header->word_size,
         fmt::format("tracing file version {} is too new (rtrace reads up to 1.5.x)",
                     version_text(header->version)));
  }
  header_ = *header;
  input_.consume(kMagicSize + 2 * std::size_t{header_.word_size});
  visitor_.header(header_);
}

void Decoder::read_records() {
  for (;;) {
    const auto window = input_.peek(kReadAhead);
    const bool whole_rest = window.size() < kReadAhead;  // nothing follows the window
    const std::uint8_t* const begin = window.data();
    const std::uint8_t* const end = begin + window.size();
    const std::uint8_t* p = begin;
    const std::uint64_t base = input_.offset();
    try {
      while (p != end) {
        const std::uint64_t offset = base + static_cast<std::uint64_t>(p - begin);
        const std::uint8_t tag = *p;
        if (tag != 'A' && tag != 'R' && tag != 'F' && tag != 'H' && tag != 'I') {
          input_.consume(static_cast<std::size_t>(p - begin));
          return finish_at_marker(offset);
        }
        p = decode_record(p, end, offset);
        visitor_.event(event_);
      }
    } catch (const Incomplete&) {
      if (whole_rest) {
        const std::uint64_t offset = base + static_cast<std::uint64_t>(p - begin);
        input_.consume(static_cast<std::size_t>(p - begin));
        return finish_truncated(
            offset, fmt::format("the file ends inside this {} record (no end marker); it is "
                                "ignored, everything before it was read",
                                static_cast<char>(*p)));
      }
    }
    input_.consume(static_cast<std::size_t>(p - begin));
    if (p == end && whole_rest) {
      return finish_truncated(input_.offset(),
                              "no end marker: the trace stops here (the traced program did not "
                              "end normally); everything before was read");
    }
  }
}

void Decoder::finish_at_marker(std::uint64_t offset) {
  const auto bytes = input_.peek(kMagicSize);
  const std::size_t matching = std::min(bytes.size(), kMagicSize);
  if (std::memcmp(bytes.data(), kMagic, matching) != 0) {
    fail(offset, fmt::format("unknown record type {} (not A, R, F, H, I or the end marker MTRC)",
                             describe_byte(bytes[0])));
  }
  if (bytes.size() < kMagicSize) {
    input_.consume(bytes.size());
    return finish_truncated(offset, "the file ends inside the end marker");
  }
  input_.consume(kMagicSize);
  if (!input_.at_end()) {
    warn(input_.offset(), "data after the end marker is ignored");
  }
  visitor_.end(Ending::EndMarker);
}

void Decoder::finish_truncated(std::uint64_t offset, std::string_view message) {
  warn(offset, message);
  visitor_.end(Ending::Truncated);
}

const std::uint8_t* Decoder::decode_record(const std::uint8_t* p, const std::uint8_t* end,
                                           std::uint64_t offset) {
  const std::uint8_t* const record = p;
  event_.type = static_cast<RecordType>(*p++);
  event_.offset = offset;
  event_.index = 0;
  event_.address = 0;
  event_.size = 0;
  event_.thread = 0;
  event_.function = {};
  event_.file = {};
  event_.line = 0;
  undefined_function_at_ = 0;
  undefined_file_at_ = 0;
  switch (event_.type) {
    case RecordType::Reserve:
    case RecordType::Internal:
      event_.address = number(p, end, offset, record);
      event_.size = number(p, end, offset, record);
      return p;
    case RecordType::Alloc:
    case RecordType::Realloc:
      event_.index = number(p, end, offset, record);
      event_.address = number(p, end, offset, record);
      event_.size = number(p, end, offset, record);
      break;
    case RecordType::Free:
      event_.index = number(p, end, offset, record);
      break;
  }
  if (header_.has_source_fields()) {
    event_.thread = number(p, end, offset, record);
    event_.function = name(p, end, offset, record, functions_, "function", undefined_function_at_);
    event_.file = name(p, end, offset, record, files_, "file", undefined_file_at_);
    event_.line = number(p, end, offset, record);
    if (undefined_function_at_ != 0) {
      warn(undefined_function_at_, "reference to an undefined function-name slot; no name");
    }
    if (undefined_file_at_ != 0) {
      warn(undefined_file_at_, "reference to an undefined file-name slot; no name");
    }
  }
  return p;
}

std::uint64_t Decoder::number(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t offset,
                              const std::uint8_t* record) {
  std::uint64_t value = 0;
  switch (decode_uleb128(p, end, value)) {
    case LebStatus::Ok:
      return value;
    case LebStatus::Incomplete:
      throw Incomplete{};
    case LebStatus::TooLong:
      break;
  }
  fail(offset + static_cast<std::uint64_t>(p - record),
       "LEB128 number longer than 64 bits (corrupt record)");
}

std::string_view Decoder::name(const std::uint8_t*& p, const std::uint8_t* end,
                               std::uint64_t offset, const std::uint8_t* record, NameCache& cache,
                               const char* what, std::uint64_t& undefined_at) {
  if (p == end) {
    throw Incomplete{};
  }
  const std::uint64_t field_offset = offset + static_cast<std::uint64_t>(p - record);
  const std::uint8_t code = *p;
  const unsigned slot = code & 0x7FU;
  if (code == 0) {
    ++p;
    return {};
  }
  if (!NameCache::valid_slot(slot)) {
    fail(field_offset,
         fmt::format("{}-name cache slot {} out of range 1..{}", what, slot, kNameCacheSlots));
  }
  if ((code & 0x80U) == 0) {
    ++p;
    if (!cache.defined(slot)) {
      undefined_at = field_offset;
      return {};
    }
    return cache.name(slot);
  }
  const std::uint8_t* text = p + 1;
  const std::size_t available = static_cast<std::size_t>(end - text);
  const auto* nul = static_cast<const std::uint8_t*>(
      std::memchr(text, 0, std::min(available, kMaxNameLength + 1)));
  if (nul == nullptr) {
    if (available > kMaxNameLength) {
      fail(field_offset, fmt::format("{} name longer than {} bytes", what, kMaxNameLength));
    }
    throw Incomplete{};
  }
  cache.define(slot, {reinterpret_cast<const char*>(text), static_cast<std::size_t>(nul - text)});
  p = nul + 1;
  return cache.name(slot);
}

}  // namespace

void decode(InputStream& input, Visitor& visitor, Diagnostics& diagnostics) {
  Decoder(input, visitor, diagnostics).run();
}

}  // namespace rtrace::mpatrol
