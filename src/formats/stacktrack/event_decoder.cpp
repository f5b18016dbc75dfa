#include "formats/stacktrack/event_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace rtrace::stacktrack {
namespace {

// How much input to look at at once; entries are decoded in place from each such window.
constexpr std::size_t kReadAhead = std::size_t{256} << 10;

std::uint64_t load_field(const std::uint8_t* p, std::uint32_t size, bool swap, bool is_signed) {
  switch (size) {
    case 1:
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int8_t>(*p)) : *p;
    case 2: {
      std::uint16_t v = 0;
      std::memcpy(&v, p, 2);
      v = swap ? static_cast<std::uint16_t>((v >> 8) | (v << 8)) : v;
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int16_t>(v)) : v;
    }
    case 4: {
      std::uint32_t v = 0;
      std::memcpy(&v, p, 4);
      v = swap ? __builtin_bswap32(v) : v;
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int32_t>(v)) : v;
    }
    default: {
      std::uint64_t v = 0;
      std::memcpy(&v, p, 8);
      return swap ? __builtin_bswap64(v) : v;
    }
  }
}

std::uint64_t low_bits(std::uint64_t value, std::uint32_t size) {
  return size >= 8 ? value : value & ((std::uint64_t{1} << (8 * size)) - 1);
}

bool native_is_big() {
  return std::endian::native == std::endian::big;
}

// The byte order in which `first` is a PROLOGUE with the layout's magic, if any.
std::optional<ByteOrder> prologue_byte_order(std::span<const std::uint8_t> first,
                                             const EntrySchema& schema) {
  const RawLayout& layout = schema.layout();
  if (first.size() < layout.entry_size) {
    return std::nullopt;
  }
  const TypeBinding& prologue = schema.binding(EntryKind::Prologue);
  const MemberLayout& magic =
      prologue.layout->members[std::size_t(prologue.field_index[std::size_t(Field::Magic)])];
  for (const ByteOrder order : {ByteOrder::Little, ByteOrder::Big}) {
    const bool swap = (order == ByteOrder::Big) != native_is_big();
    const std::uint64_t flags =
        load_field(first.data() + layout.flags.offset, layout.flags.size, swap, false);
    if (schema.is_info(flags) || schema.select(flags) != &prologue) {
      continue;
    }
    const std::uint64_t value =
        load_field(first.data() + layout.payload_offset + magic.offset, magic.size, swap, false);
    if (value == low_bits(layout.magic, magic.size)) {
      return order;
    }
  }
  return std::nullopt;
}

std::string_view kind_name(const InfoSeries& series) {
  return series.owner == nullptr ? std::string_view("entry")
                                 : std::string_view(series.owner->layout->uname);
}

}  // namespace

bool looks_like_stacktrack(std::span<const std::uint8_t> head, const EntrySchema& schema) {
  return prologue_byte_order(head, schema).has_value();
}

EventDecoder::EventDecoder(InputStream& input, const EntrySchema& schema, Diagnostics& diagnostics,
                           DecoderLimits limits)
    : input_(input),
      schema_(schema),
      diagnostics_(diagnostics),
      layout_(schema.layout()),
      limits_(limits),
      budget_(limits.context_bytes) {
  const auto first = input_.peek(layout_.entry_size);
  if (first.empty()) {
    fail(0, "empty input");
  }
  if (first.size() < layout_.entry_size) {
    fail(0, fmt::format("{} bytes: shorter than one entry ({} bytes)", first.size(),
                        layout_.entry_size));
  }
  const auto order = prologue_byte_order(first, schema_);
  if (!order) {
    fail(0, fmt::format("not a StackTrack raw event file in this layout (no PROLOGUE with "
                        "magic {:#010x} first; another platform's layout is read with --format)",
                        layout_.magic));
  }
  byte_order_ = *order;
  swap_ = (byte_order_ == ByteOrder::Big) != native_is_big();
  info_length_ = layout_.payload_size;
}

EventDecoder::~EventDecoder() = default;

const Entry* EventDecoder::next() {
  if (ended_) {
    return nullptr;
  }
  if (window_.size() - position_ < layout_.entry_size && !refill()) {
    ended_ = true;
    report_unfinished_series();
    return nullptr;
  }
  const std::uint8_t* bytes = window_.data() + position_;
  entry_.offset = input_.offset() + position_;
  position_ += layout_.entry_size;
  decode(bytes);
  return &entry_;
}

const ProcessContext* EventDecoder::process(std::uint64_t pid) const {
  const auto it = processes_.find(pid);
  return it == processes_.end() ? nullptr : it->second.get();
}

bool EventDecoder::refill() {
  input_.consume(position_);
  position_ = 0;
  window_ = input_.peek(std::max<std::size_t>(layout_.entry_size, kReadAhead));
  if (window_.empty()) {
    return false;
  }
  if (window_.size() < layout_.entry_size) {
    diagnostics_.warning(input_.name(), input_.offset(),
                         fmt::format("truncated entry ({} of {} bytes); ignored", window_.size(),
                                     layout_.entry_size));
    return false;
  }
  return true;
}

std::uint64_t EventDecoder::load(const std::uint8_t* p, std::uint32_t size, bool is_signed) const {
  return load_field(p, size, swap_, is_signed);
}

void EventDecoder::fail(std::uint64_t offset, std::string_view what) const {
  throw InputError(input_.name(), offset, what);
}

void EventDecoder::decode(const std::uint8_t* bytes) {
  entry_.flags = load(bytes + layout_.flags.offset, layout_.flags.size, false);
  entry_.pid = load(bytes + layout_.pid.offset, layout_.pid.size, false);
  entry_.sequence = load(bytes + layout_.sequence.offset, layout_.sequence.size, false);
  entry_.completed = nullptr;
  entry_.info_text = {};
  entry_.has_info = false;
  entry_.info_end = false;
  current_ = &process_for(entry_.pid);
  entry_.process = current_;
  const std::uint8_t* payload = bytes + layout_.payload_offset;
  if (schema_.is_info(entry_.flags)) {
    decode_info(payload);
  } else {
    decode_typed(payload);
  }
}

void EventDecoder::decode_info(const std::uint8_t* payload) {
  entry_.kind = EntryKind::Info;
  entry_.binding = nullptr;
  entry_.values = {};
  const auto* text = reinterpret_cast<const char*>(payload);
  entry_.info_text = std::string_view(text, strnlen(text, info_length_));
  entry_.info_end = (entry_.flags & layout_.rules.info_end) != 0;

  const auto it = pending_.find({entry_.pid, entry_.sequence});
  if (it == pending_.end()) {
    if (!warned_orphan_) {
      warned_orphan_ = true;
      diagnostics_.warning(input_.name(), entry_.offset,
                           fmt::format("INFO entry (pid {:#06x}, seq {}) that no entry announced "
                                       "(further ones are not reported)",
                                       entry_.pid, entry_.sequence));
    }
    return;
  }
  InfoSeries& series = it->second;
  if (series.text.size() + entry_.info_text.size() > limits_.series_text) {
    fail(entry_.offset, fmt::format("INFO series of the {} at offset {} longer than {} bytes",
                                    kind_name(series), series.owner_offset, limits_.series_text));
  }
  reserve(entry_.info_text.size());
  series.text += entry_.info_text;
  if (entry_.info_end) {
    completed_ = std::move(series);
    pending_.erase(it);
    budget_.release(completed_.text.size());
    entry_.completed = &completed_;
    apply(*completed_.owner,
          std::span(completed_.owner_values).first(completed_.owner->member_count),
          &completed_.text);
  }
}

void EventDecoder::decode_typed(const std::uint8_t* payload) {
  const TypeBinding* binding = schema_.select(entry_.flags);
  if (binding == nullptr) {
    fail(entry_.offset, fmt::format("unknown entry type (flags {:#06x})", entry_.flags));
  }
  for (std::size_t m = 0; m < binding->member_count; ++m) {
    const MemberReader& r = binding->readers[m];
    values_[m] = load(payload + r.offset, r.size, r.is_signed);
  }
  entry_.kind = binding->kind;
  entry_.binding = binding;
  entry_.values = std::span(values_).first(binding->member_count);
  // The GLOBAL types use the HAS_INFO bit for their type number: only checkpoints have INFO.
  entry_.has_info = (entry_.flags & layout_.rules.global_bit) == 0 &&
                    (entry_.flags & layout_.rules.has_info) != 0;
  if (entry_.kind == EntryKind::Prologue) {
    check_prologue(*binding);
  }
  apply(*binding, entry_.values, nullptr);
  if (entry_.has_info) {
    start_series();
  }
}

// A PROLOGUE must describe the layout in use (the first one decided the byte order; a later one,
// as in concatenated files, must agree with it).
void EventDecoder::check_prologue(const TypeBinding& b) {
  const auto member_size = [&](Field f) {
    return b.layout->members[std::size_t(b.field_index[std::size_t(f)])].size;
  };
  if (entry_.get(Field::Magic) != low_bits(layout_.magic, member_size(Field::Magic))) {
    fail(entry_.offset, fmt::format("PROLOGUE with magic {:#x} (expected {:#010x} in the byte "
                                    "order of the first PROLOGUE)",
                                    entry_.get(Field::Magic), layout_.magic));
  }
  const std::uint64_t entry_size = entry_.get(Field::EntrySize);
  const std::uint64_t payload_offset = entry_.get(Field::PayloadOffset);
  if (entry_size != low_bits(layout_.entry_size, member_size(Field::EntrySize)) ||
      payload_offset != low_bits(layout_.payload_offset, member_size(Field::PayloadOffset))) {
    fail(entry_.offset,
         fmt::format("PROLOGUE says entries of {} bytes with the payload at {}, the layout in use "
                     "has {} and {} (give the writer's RAW_FORMAT with --format)",
                     entry_size, payload_offset, layout_.entry_size, layout_.payload_offset));
  }
  const std::uint64_t info_len = entry_.get(Field::InfoLen);
  if (info_len > layout_.payload_size) {
    fail(entry_.offset, fmt::format("PROLOGUE says INFO text of {} bytes, more than the {}-byte "
                                    "payload",
                                    info_len, layout_.payload_size));
  }
  info_length_ = info_len == 0 ? layout_.payload_size : static_cast<std::uint32_t>(info_len);
}

void EventDecoder::apply(const TypeBinding& binding, std::span<const std::uint64_t> values,
                         const std::string* text) {
  const auto field = [&](Field f) {
    const std::int8_t i = binding.field_index[std::size_t(f)];
    return i < 0 ? std::uint64_t{0} : values[static_cast<std::size_t>(i)];
  };
  const auto signed_field = [&](Field f) { return static_cast<std::int64_t>(field(f)); };
  ProcessContext& process = *current_;
  try {
    switch (binding.kind) {
      case EntryKind::ProcInfo:
        process.set_write_count(field(Field::WriteCount));
        break;
      case EntryKind::TimeInfo:
        process.set_start(field(Field::StartHires));
        break;
      case EntryKind::TimeType:
        process.set_ticks_per_second(field(Field::TimeDivisor));
        break;
      case EntryKind::FileLoc:
        process.post_file(signed_field(Field::FileNum), field(Field::WriteCount),
                          signed_field(Field::Properties), text);
        break;
      case EntryKind::FileProperty:
        if (text != nullptr) {
          process.post_property(signed_field(Field::FileNum), signed_field(Field::PropertyNum),
                                *text);
        }
        break;
      case EntryKind::SourceLoc:
        process.post_scope(signed_field(Field::ScopeIndex),
                           Scope{.name = {},
                                 .file = signed_field(Field::FileNum),
                                 .line = signed_field(Field::LineNum),
                                 .style = signed_field(Field::Style),
                                 .write_count = field(Field::WriteCount)},
                           text);
        break;
      default:
        break;
    }
  } catch (const ContextFull& full) {
    refuse(full);
  }
}

void EventDecoder::reserve(std::uint64_t bytes) {
  try {
    budget_.add(bytes);
  } catch (const ContextFull& full) {
    refuse(full);
  }
}

void EventDecoder::refuse(const ContextFull& full) const {
  fail(entry_.offset,
       fmt::format("more than {} bytes of names and INFO text kept; refused", full.limit));
}

void EventDecoder::start_series() {
  const PendingKey key{entry_.pid, entry_.sequence};
  auto it = pending_.find(key);
  if (it != pending_.end()) {
    diagnostics_.warning(input_.name(), entry_.offset,
                         fmt::format("the INFO series of the {} at offset {} never ended; its "
                                     "text is dropped",
                                     kind_name(it->second), it->second.owner_offset));
    budget_.release(it->second.text.size());
  } else {
    if (pending_.size() == limits_.pending_series) {
      fail(entry_.offset,
           fmt::format("more than {} INFO series open at once; refused", limits_.pending_series));
    }
    it = pending_.emplace(key, InfoSeries{}).first;
  }
  InfoSeries& series = it->second;
  series.owner = entry_.binding;
  series.owner_offset = entry_.offset;
  series.owner_values = values_;
  series.text.clear();
}

void EventDecoder::report_unfinished_series() {
  if (pending_.empty()) {
    return;
  }
  const auto first = std::min_element(
      pending_.begin(), pending_.end(),
      [](const auto& a, const auto& b) { return a.second.owner_offset < b.second.owner_offset; });
  diagnostics_.warning(
      input_.name(), input_.offset() + position_,
      fmt::format("{} INFO series never ended (the first announced by the {} at offset {})",
                  pending_.size(), kind_name(first->second), first->second.owner_offset));
}

ProcessContext& EventDecoder::process_for(std::uint64_t pid) {
  if (last_process_ != nullptr && last_process_->pid() == pid) {
    return *last_process_;
  }
  auto it = processes_.find(pid);
  if (it == processes_.end()) {
    if (processes_.size() == limits_.processes) {
      fail(entry_.offset, fmt::format("more than {} processes; refused", limits_.processes));
    }
    it = processes_.emplace(pid, std::make_unique<ProcessContext>(pid, budget_)).first;
  }
  last_process_ = it->second.get();
  return *last_process_;
}

}  // namespace rtrace::stacktrack
