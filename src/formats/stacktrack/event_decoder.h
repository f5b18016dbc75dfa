// Streaming decoder of StackTrack raw event files: one typed entry at a time, with the context
// of its process (files, scopes, time base) kept across the stream.
//
// The decoder knows entries only through an EntrySchema (a layout description), so it reads
// files of any platform; it finds the byte order from the PROLOGUE that starts every file. It
// reassembles INFO series (the text following an entry with HAS_INFO) even when entries of other
// sequences or processes come between their parts, and applies the text to its owner's context.
// It holds one window of input and the kept context, whatever the size of the file; it knows
// nothing of rtrace's common trace model (an adapter turns entries into calls).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "formats/stacktrack/entry_schema.h"
#include "formats/stacktrack/process_context.h"
#include "io/diagnostics.h"
#include "io/input_stream.h"

namespace rtrace::stacktrack {

// The text of an INFO series, complete, with the entry that announced it.
struct InfoSeries {
  const TypeBinding* owner = nullptr;  // its type (owner->kind: SLOC, FLOC, ...)
  std::uint64_t owner_offset = 0;
  std::array<std::uint64_t, kMaxMembers> owner_values{};
  std::string text;
};

struct Entry {
  std::uint64_t offset = 0;  // of the entry in the input
  std::uint64_t flags = 0;
  std::uint64_t pid = 0;
  std::uint64_t sequence = 0;
  EntryKind kind = EntryKind::Info;
  const TypeBinding* binding = nullptr;  // nullptr for INFO
  // The members in declaration order (signed ones sign-extended), for all but INFO.
  std::span<const std::uint64_t> values;
  std::string_view info_text;             // INFO: this part's text (up to its first NUL)
  bool has_info = false;                  // INFO entries follow (not for INFO itself)
  bool info_end = false;                  // INFO: the last part of its series
  const InfoSeries* completed = nullptr;  // INFO_END: the whole series
  const ProcessContext* process = nullptr;

  // A member with a meaning (see Field), 0 when this entry's type has none.
  std::uint64_t get(Field field) const {
    const std::int8_t i = binding == nullptr ? -1 : binding->field_index[std::size_t(field)];
    return i < 0 ? 0 : values[static_cast<std::size_t>(i)];
  }
  std::int64_t get_signed(Field field) const { return static_cast<std::int64_t>(get(field)); }
};

enum class ByteOrder : std::uint8_t { Little, Big };

// Limits against hostile input (a clear InputError beyond them); they bound the decoder's memory.
struct DecoderLimits {
  std::size_t processes = 4096;
  std::size_t pending_series = 4096;                       // INFO series open at once
  std::size_t series_text = std::size_t{64} << 10;         // bytes of one INFO series
  std::uint64_t context_bytes = std::uint64_t{256} << 20;  // kept names and open series
};

class EventDecoder {
 public:
  // Reads the first entry, which must be a PROLOGUE, and finds the byte order. Throws
  // InputError when the input is not a StackTrack file in this layout.
  EventDecoder(InputStream& input, const EntrySchema& schema, Diagnostics& diagnostics,
               DecoderLimits limits = {});
  EventDecoder(const EventDecoder&) = delete;
  EventDecoder& operator=(const EventDecoder&) = delete;
  ~EventDecoder();

  // The next entry (valid until the next call), or nullptr at the end of the input. A truncated
  // last entry or an unfinished INFO series is a warning; damage that leaves the rest
  // meaningless throws InputError after every entry before it was returned.
  const Entry* next();

  ByteOrder byte_order() const { return byte_order_; }
  const ProcessContext* process(std::uint64_t pid) const;
  std::size_t process_count() const { return processes_.size(); }

 private:
  struct PendingKey {
    std::uint64_t pid;
    std::uint64_t sequence;
    bool operator==(const PendingKey&) const = default;
  };
  struct PendingHash {
    std::size_t operator()(const PendingKey& k) const {
      return std::hash<std::uint64_t>()(k.pid * 0x9E3779B97F4A7C15ULL ^ k.sequence);
    }
  };

  bool refill();
  void detect_byte_order(std::span<const std::uint8_t> first);
  void decode(const std::uint8_t* bytes);
  void decode_info(const std::uint8_t* payload);
  void decode_typed(const std::uint8_t* payload);
  void apply(const TypeBinding& binding, std::span<const std::uint64_t> values,
             const std::string* text);
  void check_prologue(const TypeBinding& prologue);
  void start_series();
  void finish_series(std::uint64_t key_pid, std::uint64_t key_sequence);
  void report_unfinished_series();
  ProcessContext& process_for(std::uint64_t pid);
  std::uint64_t load(const std::uint8_t* p, std::uint32_t size, bool is_signed) const;
  void reserve(std::uint64_t bytes);
  [[noreturn]] void refuse(const ContextFull& full) const;
  [[noreturn]] void fail(std::uint64_t offset, std::string_view what) const;

  InputStream& input_;
  const EntrySchema& schema_;
  Diagnostics& diagnostics_;
  const RawLayout& layout_;
  ByteOrder byte_order_ = ByteOrder::Little;
  bool swap_ = false;
  std::uint32_t info_length_ = 0;

  std::span<const std::uint8_t> window_;
  std::size_t position_ = 0;
  bool ended_ = false;

  Entry entry_;
  std::array<std::uint64_t, kMaxMembers> values_{};
  InfoSeries completed_;

  DecoderLimits limits_;
  ContextBudget budget_;
  std::unordered_map<std::uint64_t, std::unique_ptr<ProcessContext>> processes_;
  ProcessContext* last_process_ = nullptr;
  ProcessContext* current_ = nullptr;  // the process of the entry being decoded
  std::unordered_map<PendingKey, InfoSeries, PendingHash> pending_;
  bool warned_orphan_ = false;
};

// Whether `head` starts with a PROLOGUE entry of `schema`'s layout in either byte order.
bool looks_like_stacktrack(std::span<const std::uint8_t> head, const EntrySchema& schema);

}  // namespace rtrace::stacktrack
