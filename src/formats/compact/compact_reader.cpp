#include "formats/compact/compact_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "formats/compact/record_cursor.h"
#include "formats/declared_once.h"
#include "formats/sprtrace_binary/binary_reader.h"
#include "protocol/compact_protocol.h"

namespace rtrace {
namespace {

using compact::CorruptRecord;
using compact::RecordCursor;
using compact::Tag;

// How much to ask of the input at once; records are decoded in place from each such window.
constexpr std::size_t kReadAhead = std::size_t{256} << 10;
constexpr std::uint64_t kMaxTimeUnit = 1'000'000'000;
// Writers reset their tables long before these (docs/format.md), so memory stays bounded
// whatever the input claims.
constexpr std::size_t kMaxHeldFrames = std::size_t{1} << 26;
constexpr std::size_t kMaxHeldFunctions = std::size_t{1} << 22;
constexpr std::uint8_t kLastCallKind = static_cast<std::uint8_t>(CallKind::Exit);

enum class Step : std::uint8_t { Done, Incomplete };

// Walks one varint of `bytes` from `pos`; false when the bytes end first.
bool skip_varint(std::span<const std::uint8_t> bytes, std::size_t& pos, std::uint64_t& value,
                 std::uint64_t offset) {
  value = 0;
  for (unsigned shift = 0;; shift += 7) {
    if (pos >= bytes.size()) {
      return false;
    }
    const std::uint8_t b = bytes[pos++];
    if (shift > 63 || (shift == 63 && b > 1)) {
      throw CorruptRecord{offset, "malformed number in a call"};
    }
    value |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) {
      return true;
    }
  }
}

// A bare CALL without arguments is at most its flags byte and seven varints (function, resource,
// size, stack, type, context, timestamp): one that starts this far from the end of the bytes at
// hand is decoded straight away, without sizing it first.
constexpr std::size_t kMaxBareCallWithoutArguments = 1 + 7 * compact::kMaxVarint;

// How many numbers a bare CALL with these flags has before its arguments: function, resource,
// size and stack, the type and context, the timestamp.
std::size_t bare_call_numbers(std::uint8_t flags) {
  return 4 + ((flags & compact::kCallHasTypeAndContext) != 0 ? 2 : 0) +
         ((flags & compact::kCallHasTimestamp) != 0 ? 1 : 0);
}

// How long the bare CALL (version 3) at the front of `bytes` is, from its flags and the lengths
// of its fields, before anything of it is decoded (decoding moves the delta bases): Done with
// `size`, or Incomplete with at least how many bytes it needs.
Step bare_call_size(std::span<const std::uint8_t> bytes, std::uint64_t offset, std::size_t& size) {
  const std::uint8_t flags = bytes[0];
  const std::size_t fields = bare_call_numbers(flags);
  std::size_t pos = 1;
  std::uint64_t value = 0;
  const auto short_by_one = [&] {
    size = pos + 1;
    return Step::Incomplete;
  };
  for (std::size_t i = 0; i < fields; ++i) {
    if (!skip_varint(bytes, pos, value, offset)) {
      return short_by_one();
    }
  }
  if ((flags & compact::kCallHasArguments) != 0) {
    std::uint64_t count = 0;
    if (!skip_varint(bytes, pos, count, offset)) {
      return short_by_one();
    }
    // Each argument is two strings of at least one byte each.
    if (count > compact::kMaxPayload / 2) {
      throw CorruptRecord{offset, fmt::format("impossible argument count {}", count)};
    }
    for (std::uint64_t i = 0; i < 2 * count; ++i) {
      if (!skip_varint(bytes, pos, value, offset)) {
        return short_by_one();
      }
      if (value > compact::kMaxPayload || pos + value > 1 + compact::kMaxPayload) {
        throw CorruptRecord{offset, "impossible record length"};
      }
      pos += static_cast<std::size_t>(value);
      if (pos > bytes.size()) {
        size = pos;
        return Step::Incomplete;
      }
    }
  }
  size = pos;
  return Step::Done;
}

class CompactReader {
 public:
  CompactReader(InputStream& input, TraceSink& sink, Diagnostics& diagnostics)
      : input_(input), sink_(sink), diagnostics_(diagnostics) {}

  void run();
  // Whether a MAPPING record follows a call anywhere in the input, walking only the records'
  // lengths (no field decoded, nothing delivered, damage ends the walk).
  bool any_mapping_after_a_call();

 private:
  bool read_file_header();
  // A file header at a record boundary: the next trace of a concatenation (`rtrace process` of a
  // stream of several processes writes one trace per process, one after the other). Done with
  // its size in `size` when `bytes` starts with one, Incomplete when they may but more bytes are
  // needed, nullopt when they do not.
  std::optional<Step> next_file_header(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                       std::size_t& size);
  // False when the input ended inside a record (warned about). kWalk: any_mapping_after_a_call's
  // walk, which measures each record (frame_record) and stops at the first late mapping.
  template <bool kWalk = false>
  bool read_records();
  // One record at the front of `bytes` measured, not read (any_mapping_after_a_call).
  Step frame_record(std::span<const std::uint8_t> bytes, std::uint64_t offset, std::size_t& size);
  Step read_record(std::span<const std::uint8_t> bytes, std::uint64_t offset, std::size_t& size);
  void dispatch(Tag tag, RecordCursor& record);

  void read_trace(RecordCursor& record);
  void read_process(RecordCursor& record);
  void read_module(RecordCursor& record);
  void read_mapping(RecordCursor& record);
  void read_context(RecordCursor& record);
  void read_resource(RecordCursor& record);
  void read_function(RecordCursor& record);
  void read_stack(RecordCursor& record);
  // `bare`: version 3's CALL, whose first byte holds kBareCall besides the flags.
  void read_call(RecordCursor& record, bool bare = false);
  void read_heap_info(RecordCursor& record);
  void read_output(RecordCursor& record);
  void read_attachment(RecordCursor& record);
  void read_reset(RecordCursor& record);
  void read_end(RecordCursor& record);
  void read_note(RecordCursor& record);
  void read_leak_kinds(RecordCursor& record);
  void read_thread(RecordCursor& record);
  Step read_thread_switch(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                          std::size_t& size);
  void switch_thread(std::uint64_t slot, RecordCursor& record);
  void read_call_fields_v1(std::uint8_t flags, RecordCursor& record, CallRecord& call);
  void read_call_fields_v2(std::uint8_t flags, RecordCursor& record, CallRecord& call);
  std::uint64_t read_size(RecordCursor& record);
  std::uint64_t referred_resource(std::uint8_t kind, RecordCursor& record);
  void remember_resource(CallKind kind, std::uint64_t resource_id);
  void emit_transient_release(CallRecord& call, bool with_stack);
  std::uint64_t recent_stack(std::uint64_t field, RecordCursor& record);
  void skip_unknown(std::uint8_t tag, std::uint64_t offset);

  void warn(std::uint64_t offset, std::string_view message) {
    diagnostics_.warning(input_.name(), offset, message);
  }

  InputStream& input_;
  TraceSink& sink_;
  Diagnostics& diagnostics_;

  std::uint8_t major_ = compact::kMajor;
  std::uint8_t minor_ = compact::kMinor;
  bool seen_trace_ = false;
  bool header_delivered_ = false;  // the first trace's TRACE; the others' are not passed on
  DeclaredOnce declared_;
  bool ended_ = false;
  std::uint64_t time_unit_ns_ = 1;
  std::uint32_t pid_ = 0;
  std::uint64_t call_count_ = 0;
  std::vector<BlockKind> leak_blocks_;  // a LEAK_KINDS record's, reused

  // The delta bases (compact_encoder.h).
  std::uint64_t previous_timestamp_ = 0;
  std::uint64_t previous_frame_ = 0;
  std::uint32_t previous_type_ = 0;
  std::uint32_t previous_context_ = 0;

  // What a THREAD slot counts on its own (version 4; before it every call is slot 0's): its
  // thread, its resource delta base, for version 2's resource references the resource ids of its
  // last kResourceWindow allocations and releases, by their number (from 0) modulo the window,
  // its recent stacks and its size base (version 5). The rings grow with the calls, so memory
  // follows the input's size.
  struct ThreadState {
    std::uint64_t tid = 0;
    std::uint64_t previous_resource = 0;
    std::vector<std::uint64_t> allocated;
    std::vector<std::uint64_t> released;
    std::uint64_t allocations = 0;
    std::uint64_t releases = 0;
    std::uint64_t recent_stacks[compact::kRecentStacks] = {};  // the latest first; 0: none
    std::uint64_t size_base = 0;                               // the last nonzero size (version 5)
  };
  std::vector<ThreadState> threads_ = std::vector<ThreadState>(1);
  std::size_t slot_ = 0;

  // Function names and stacks by id - 1, at most kMaxHeldFunctions and kMaxHeldFrames.
  std::vector<std::string> functions_;
  std::vector<Frame> stack_frames_;  // a call's frames are a span of these
  struct StackSpan {
    std::size_t first;
    std::size_t count;
  };
  std::vector<StackSpan> stacks_;

  std::vector<Argument> arguments_;
  std::vector<std::uint8_t> unknown_tags_;

  // any_mapping_after_a_call's walk.
  bool framed_call_ = false;
  bool framed_late_mapping_ = false;
};

void CompactReader::run() {
  bool complete = false;
  try {
    complete = read_file_header() && read_records();
  } catch (const CorruptRecord& damage) {
    sink_.finish();
    throw InputError(input_.name(), damage.offset, damage.message);
  }
  if (complete && !ended_) {
    warn(input_.offset(),
         "incomplete trace: no end-of-trace record (the process was killed or is still running)");
  }
  sink_.finish();
}

bool CompactReader::read_file_header() {
  const auto bytes = input_.peek(compact::kFileHeaderSize);
  if (bytes.size() < compact::kMagicSize ||
      !std::equal(bytes.begin(), bytes.begin() + compact::kMagicSize, compact::kMagic,
                  [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); })) {
    if (bytes.size() < compact::kMagicSize) {
      warn(0, "truncated file header");
      return false;
    }
    throw CorruptRecord{0, "not a compact rtrace trace (no magic bytes)"};
  }
  if (bytes.size() < compact::kFileHeaderSize) {
    warn(0, "truncated file header");
    return false;
  }
  const std::uint8_t major = bytes[compact::kMagicSize];
  const std::uint8_t minor = bytes[compact::kMagicSize + 1];
  if (major < compact::kOldestMajor || major > compact::kMajor) {
    throw CorruptRecord{compact::kMagicSize,
                        fmt::format("unsupported compact format version {}.{}", major, minor)};
  }
  major_ = major;
  minor_ = minor;
  input_.consume(compact::kFileHeaderSize);
  return true;
}

std::optional<Step> CompactReader::next_file_header(std::span<const std::uint8_t> bytes,
                                                    std::uint64_t offset, std::size_t& size) {
  // A CALL's flags byte may equal the magic's first (a bare CALL has bit 7 set): the whole magic,
  // "\x89RTC\r\n\x1a\n", tells them apart.
  const std::size_t compared = std::min(bytes.size(), compact::kMagicSize);
  if (!seen_trace_ || compared == 0 ||
      !std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(compared),
                  compact::kMagic,
                  [](std::uint8_t a, char b) { return a == static_cast<std::uint8_t>(b); })) {
    return std::nullopt;
  }
  if (bytes.size() < compact::kFileHeaderSize) {
    size = compact::kFileHeaderSize;
    return Step::Incomplete;
  }
  const std::uint8_t major = bytes[compact::kMagicSize];
  if (major < compact::kOldestMajor || major > compact::kMajor) {
    throw CorruptRecord{offset + compact::kMagicSize,
                        fmt::format("unsupported compact format version {}.{} (a second trace)",
                                    major, bytes[compact::kMagicSize + 1])};
  }
  if (!ended_) {
    warn(offset,
         "incomplete trace: no end-of-trace record before the next trace (the process was "
         "killed or is still running)");
  }
  // What belongs to one trace starts again: its tables, delta bases and threads.
  major_ = major;
  minor_ = bytes[compact::kMagicSize + 1];
  seen_trace_ = false;
  ended_ = false;
  pid_ = 0;
  previous_timestamp_ = 0;
  previous_frame_ = 0;
  previous_type_ = 0;
  previous_context_ = 0;
  threads_.assign(1, ThreadState{});
  slot_ = 0;
  functions_.clear();
  stack_frames_.clear();
  stacks_.clear();
  framed_call_ = false;
  size = compact::kFileHeaderSize;
  return Step::Done;
}

bool CompactReader::any_mapping_after_a_call() {
  try {
    if (read_file_header()) {
      read_records<true>();
    }
  } catch (const CorruptRecord&) {
    // The walk ends at the damage; what it found before stands.
  }
  return framed_late_mapping_;
}

template <bool kWalk>
bool CompactReader::read_records() {
  std::size_t wanted = 2;
  for (;;) {
    const auto bytes = input_.peek(std::max(wanted, kReadAhead));
    if (bytes.empty()) {
      return true;
    }
    if (bytes.size() < wanted) {
      warn(input_.offset(),
           fmt::format("truncated record ({} of {} bytes); ignored", bytes.size(), wanted));
      return false;
    }
    std::size_t pos = 0;
    for (;;) {
      std::size_t size = 0;
      Step step = Step::Done;
      if constexpr (kWalk) {
        step = frame_record(bytes.subspan(pos), input_.offset() + pos, size);
        if (framed_late_mapping_) {
          return true;  // found what the walk looks for
        }
      } else {
        step = read_record(bytes.subspan(pos), input_.offset() + pos, size);
      }
      if (step == Step::Incomplete) {
        wanted = size;
        break;
      }
      pos += size;
    }
    input_.consume(pos);
  }
}

// The [tag][length varint] record at the front of `bytes` (at most 1 + kMaxVarint bytes of
// header): Done with the header's length in `header` and the record's in `size`, or Incomplete
// with at least how many bytes it needs in `size`.
Step framed_record_size(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                        std::size_t& header, std::size_t& size) {
  std::uint64_t length = 0;
  header = 1;
  for (unsigned shift = 0;; shift += 7, ++header) {
    if (header >= bytes.size()) {
      size = header + 1;
      return Step::Incomplete;
    }
    const std::uint8_t b = bytes[header];
    if (shift > 28) {
      throw CorruptRecord{offset, "impossible record length"};
    }
    length |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) {
      break;
    }
  }
  ++header;
  if (length > compact::kMaxPayload) {
    throw CorruptRecord{offset, fmt::format("impossible record length {}", length)};
  }
  size = header + static_cast<std::size_t>(length);
  return bytes.size() < size ? Step::Incomplete : Step::Done;
}

Step CompactReader::frame_record(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                 std::size_t& size) {
  if (const std::optional<Step> header = next_file_header(bytes, offset, size)) {
    return *header;
  }
  if (major_ >= compact::kFirstBareMajor && !bytes.empty() &&
      (bytes[0] & compact::kBareCall) != 0) {
    if (major_ >= compact::kFirstThreadMajor &&
        (bytes[0] & compact::kCallKindMask) == compact::kThreadSwitchKind) {
      return read_thread_switch(bytes, offset, size);
    }
    framed_call_ = true;
    if ((bytes[0] & compact::kCallHasArguments) != 0) {
      return bare_call_size(bytes, offset, size);
    }
    // Its fields' last bytes counted, the numbers unchecked: the walk looks only for records,
    // and damage it walks past is the full pass's to find. (bare_call_size here, checking every
    // number, made -lc on a 2 M-call compact churn 10-15 % slower.)
    std::size_t fields = bare_call_numbers(bytes[0]);
    std::size_t pos = 1;
    for (; fields > 0; ++pos) {
      if (pos == bytes.size()) {
        size = pos + 1;
        return Step::Incomplete;
      }
      fields -= (bytes[pos] & 0x80) == 0 ? 1 : 0;
    }
    size = pos;
    return Step::Done;
  }
  std::size_t header = 0;
  const Step step = framed_record_size(bytes, offset, header, size);
  if (step == Step::Done) {
    const auto tag = static_cast<Tag>(bytes[0]);
    framed_call_ = framed_call_ || tag == Tag::Call;
    framed_late_mapping_ = framed_call_ && tag == Tag::Mapping;
  }
  return step;
}

// One record at the front of `bytes`. Done: `size` is its length. Incomplete: `size` is how
// many bytes it needs (at least one more than `bytes` holds).
Step CompactReader::read_record(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                std::size_t& size) {
  if (const std::optional<Step> header = next_file_header(bytes, offset, size)) {
    return *header;
  }
  if (major_ >= compact::kFirstBareMajor && !bytes.empty() &&
      (bytes[0] & compact::kBareCall) != 0) {
    if (!seen_trace_) {
      throw CorruptRecord{offset, "the first record is not a TRACE record"};
    }
    if (major_ >= compact::kFirstThreadMajor &&
        (bytes[0] & compact::kCallKindMask) == compact::kThreadSwitchKind) {
      return read_thread_switch(bytes, offset, size);
    }
    if ((bytes[0] & compact::kCallHasArguments) == 0 &&
        bytes.size() >= kMaxBareCallWithoutArguments) {
      RecordCursor record(bytes.subspan(0, kMaxBareCallWithoutArguments), offset);
      read_call(record, true);
      size = kMaxBareCallWithoutArguments - record.remaining();
      return Step::Done;
    }
    if (bare_call_size(bytes, offset, size) == Step::Incomplete) {
      return Step::Incomplete;
    }
    RecordCursor record(bytes.subspan(0, size), offset);
    read_call(record, true);
    return Step::Done;
  }
  std::size_t header = 0;
  if (framed_record_size(bytes, offset, header, size) == Step::Incomplete) {
    return Step::Incomplete;
  }
  RecordCursor record(bytes.subspan(header, size - header), offset);
  const auto tag = static_cast<Tag>(bytes[0]);
  if (!seen_trace_ && tag != Tag::Trace) {
    throw CorruptRecord{offset, "the first record is not a TRACE record"};
  }
  dispatch(tag, record);
  return Step::Done;
}

void CompactReader::dispatch(Tag tag, RecordCursor& record) {
  switch (tag) {
    case Tag::Trace:
      return read_trace(record);
    case Tag::Process:
      return read_process(record);
    case Tag::Module:
      return read_module(record);
    case Tag::Mapping:
      return read_mapping(record);
    case Tag::Context:
      return read_context(record);
    case Tag::Resource:
      return read_resource(record);
    case Tag::Function:
      return read_function(record);
    case Tag::Stack:
      return read_stack(record);
    case Tag::Call:
      return read_call(record);
    case Tag::HeapInfo:
      return read_heap_info(record);
    case Tag::Output:
      return read_output(record);
    case Tag::Attachment:
      return read_attachment(record);
    case Tag::Reset:
      return read_reset(record);
    case Tag::End:
      return read_end(record);
    case Tag::Note:
      return read_note(record);
    case Tag::LeakKinds:
      return read_leak_kinds(record);
    case Tag::Thread:
      if (major_ >= compact::kFirstThreadMajor) {
        return read_thread(record);
      }
      break;  // an unknown tag before version 4
  }
  skip_unknown(static_cast<std::uint8_t>(tag), record.record_offset());
}

void CompactReader::read_trace(RecordCursor& record) {
  if (seen_trace_) {
    record.fail("a second TRACE record");
  }
  seen_trace_ = true;
  const bool deliver = !header_delivered_;
  header_delivered_ = true;
  TraceHeader header;
  header.arch = record.string("the architecture");
  const std::uint64_t pointer_size = record.varint("the pointer size");
  if (pointer_size != 4 && pointer_size != 8) {
    record.fail(fmt::format("unsupported pointer size {}", pointer_size));
  }
  const std::uint64_t machine = record.varint("the machine flags");
  time_unit_ns_ = record.varint("the time unit");
  if (time_unit_ns_ == 0 || time_unit_ns_ > kMaxTimeUnit) {
    record.fail(fmt::format("impossible time unit {} ns", time_unit_ns_));
  }
  header.origin = record.string("the origin");
  const std::uint64_t applied = record.varint("the applied stages");
  header.applied.leaks = (applied & compact::kAppliedLeaks) != 0;
  header.applied.compress = (applied & compact::kAppliedCompress) != 0;
  header.applied.resolve = (applied & compact::kAppliedResolve) != 0;
  // What the sp-rtrace binary writer needs to write the stream the tracer would have written.
  header.metadata.set("sprtrace.byte_order",
                      (machine & compact::kBigEndianMachine) != 0 ? "big" : "little");
  header.metadata.set("sprtrace.pointer_size", pointer_size == 4 ? "4" : "8");
  header.metadata.set("compact.version", fmt::format("{}.{}", major_, minor_));
  if (deliver) {
    sink_.header(header);
  }
}

void CompactReader::read_process(RecordCursor& record) {
  ProcessInfo info;
  info.pid = record.u32("the pid");
  info.start.seconds = static_cast<std::int64_t>(record.varint("the start time"));
  info.start.microseconds = record.u32("the start time");
  const std::uint64_t depth_plus_one = record.varint("the backtrace depth");
  if (depth_plus_one > 0) {
    if (depth_plus_one - 1 > std::numeric_limits<std::uint32_t>::max()) {
      record.fail("backtrace depth out of range");
    }
    info.backtrace_depth = static_cast<std::uint32_t>(depth_plus_one - 1);
  }
  info.name = record.string("the process name");
  if (record.remaining() > 0) {  // the command line (rtrace's tracer writes it)
    const std::uint64_t flags = record.varint("the command line flags");
    const std::uint64_t count = record.varint("the argument count");
    if (count > record.remaining()) {  // each argument takes at least its length byte
      record.fail(fmt::format("{} arguments in a {}-byte record", count, record.remaining()));
    }
    if ((flags & compact::kCommandLinePresent) != 0) {
      CommandLine command_line;
      command_line.cut = (flags & compact::kCommandLineCut) != 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        command_line.arguments.emplace_back(record.string("an argument"));
      }
      info.command_line = std::move(command_line);
    }
  }
  pid_ = info.pid;
  sink_.process(info);
}

void CompactReader::read_module(RecordCursor& record) {
  ModuleInfo module;
  module.id = record.u32("the module id");
  const std::uint32_t major = record.u32("the module version");
  const std::uint32_t minor = record.u32("the module version");
  if (major > 0xFFFF || minor > 0xFFFF) {
    record.fail(fmt::format("module version {}.{} out of range", major, minor));
  }
  module.version_major = static_cast<std::uint16_t>(major);
  module.version_minor = static_cast<std::uint16_t>(minor);
  module.name = record.string("the module name");
  if (declared_.first(module)) {
    sink_.module(module);
  }
}

void CompactReader::read_mapping(RecordCursor& record) {
  Mapping mapping;
  mapping.from = record.varint("the mapping start");
  mapping.to = mapping.from + record.varint("the mapping length");
  mapping.path = record.string("the mapping path");
  mapping.pid = pid_;
  sink_.mapping(mapping);
}

void CompactReader::read_context(RecordCursor& record) {
  ContextInfo context;
  context.id = record.u32("the context id");
  context.name = record.string("the context name");
  if (declared_.first(context)) {
    sink_.context(context);
  }
}

void CompactReader::read_resource(RecordCursor& record) {
  ResourceType type;
  type.id = record.u32("the resource type id");
  type.flags = record.u32("the resource type flags");
  type.type = record.string("the resource type name");
  type.description = record.string("the resource type description");
  if (!ResourceType::valid_id(type.id)) {
    warn(record.record_offset(),
         fmt::format("resource type id {} out of range (1 to {}); the type is left out", type.id,
                     ResourceType::kMaxId));
    return;
  }
  if (declared_.first(type)) {
    sink_.resource_type(type);
  }
}

void CompactReader::read_function(RecordCursor& record) {
  if (functions_.size() == kMaxHeldFunctions) {
    record.fail(fmt::format("more than {} function names without a RESET", kMaxHeldFunctions));
  }
  functions_.emplace_back(record.string("the function name"));
}

void CompactReader::read_stack(RecordCursor& record) {
  const std::uint64_t count = record.varint("the frame count");
  // Version 6: the outer frames shared with an earlier stack, which one (ids back from this one).
  std::uint64_t shared = 0;
  const StackSpan* base = nullptr;
  if (major_ >= compact::kFirstSharedStackMajor) {
    shared = record.varint("the shared frame count");
    if (shared > count) {
      record.fail(fmt::format("{} shared frames in a stack of {}", shared, count));
    }
    if (shared > 0) {
      const std::uint64_t back = record.varint("the base stack");
      if (back == 0 || back > stacks_.size()) {
        record.fail(
            fmt::format("undefined base stack ({} back from stack {})", back, stacks_.size() + 1));
      }
      base = &stacks_[stacks_.size() - back];
      if (shared > base->count) {
        record.fail(fmt::format("{} shared frames of a stack of {}", shared, base->count));
      }
    }
  }
  // Every frame written takes at least one byte.
  if (count - shared > record.remaining()) {
    record.fail(fmt::format("frame count {} larger than the record holds", count - shared));
  }
  if (count > kMaxHeldFrames - stack_frames_.size()) {
    record.fail(fmt::format("more than {} frames without a RESET", kMaxHeldFrames));
  }
  const std::size_t first = stack_frames_.size();
  for (std::uint64_t i = shared; i < count; ++i) {
    previous_frame_ = compact::undelta(record.varint("a frame"), previous_frame_);
    stack_frames_.push_back(Frame{.address = previous_frame_});
  }
  if (base != nullptr) {  // by index: the pushes may move the frames
    const std::size_t from = base->first + base->count - shared;
    for (std::size_t i = 0; i < shared; ++i) {
      stack_frames_.push_back(stack_frames_[from + i]);
    }
  }
  stacks_.push_back({first, static_cast<std::size_t>(count)});
  if (major_ >=
      compact::kFirstSharedStackMajor) {  // the slot's latest stack, pushing out the oldest
    std::uint64_t* recent = threads_[slot_].recent_stacks;
    std::copy_backward(recent, recent + compact::kRecentStacks - 1,
                       recent + compact::kRecentStacks);
    recent[0] = stacks_.size();
  }
}

void CompactReader::read_call(RecordCursor& record, bool bare) {
  CallRecord call;
  const std::uint8_t flags =
      record.byte("the call kind") & static_cast<std::uint8_t>(bare ? ~compact::kBareCall : 0xFF);
  const std::uint8_t kind = flags & compact::kCallKindMask;
  const std::uint8_t known =
      major_ == 1 ? compact::kCallFlagsVersion1 : compact::kCallFlagsVersion2;
  const bool transient =
      major_ >= compact::kFirstThreadMajor &&
      (kind == compact::kTransientKind || kind == compact::kTransientWithReleaseStackKind);
  if ((kind > kLastCallKind && !transient) || (flags & ~known) != 0) {
    record.fail(fmt::format("unknown call flags {:#04x}", flags));
  }
  // A transient call's fields are its allocation's; its release follows (emit_transient_release).
  call.call.kind = transient ? CallKind::Alloc : static_cast<CallKind>(kind);
  const std::uint64_t function = record.varint("the function id");
  if (function == 0 || function > functions_.size()) {
    record.fail(fmt::format("undefined function id {}", function));
  }
  call.function = functions_[function - 1];
  if (major_ == 1) {
    read_call_fields_v1(flags, record, call);
  } else {
    read_call_fields_v2(flags, record, call);
  }
  std::uint64_t stack = record.varint("the stack id");
  if (major_ >= compact::kFirstThreadMajor && stack > 0) {
    stack = recent_stack(stack, record);
  }
  if (stack > stacks_.size()) {
    record.fail(fmt::format("undefined stack id {}", stack));
  }
  if (stack > 0) {
    const StackSpan& span = stacks_[stack - 1];
    call.frames = std::span<const Frame>(stack_frames_).subspan(span.first, span.count);
  }
  arguments_.clear();
  if ((flags & compact::kCallHasArguments) != 0) {
    const std::uint64_t count = record.varint("the argument count");
    // Each argument is two strings of at least one byte each.
    if (count > record.remaining() / 2) {
      record.fail(fmt::format("argument count {} larger than the record holds", count));
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::string_view name = record.string("an argument name");
      const std::string_view value = record.string("an argument value");
      arguments_.push_back({name, value});
    }
  }
  call.arguments = arguments_;
  call.call.index = ++call_count_;
  call.call.pid = pid_;
  call.call.thread = threads_[slot_].tid;
  sink_.call(call);
  if (transient) {
    emit_transient_release(call, kind == compact::kTransientWithReleaseStackKind);
  }
}

// Version 4: a CALL's nonzero `stack` field, a place among the slot's recent stacks or an id after
// them, as the stack id; that stack becomes the slot's latest.
std::uint64_t CompactReader::recent_stack(std::uint64_t field, RecordCursor& record) {
  std::uint64_t* recent = threads_[slot_].recent_stacks;
  std::uint64_t stack = 0;
  std::uint32_t place = compact::kRecentStacks - 1;  // a new stack pushes out the oldest
  if (field <= compact::kRecentStacks) {
    place = static_cast<std::uint32_t>(field - 1);
    stack = recent[place];
    if (stack == 0) {
      record.fail(fmt::format("recent stack {} of a thread with fewer", field));
    }
  } else {
    stack = field - compact::kRecentStacks;
  }
  for (std::uint32_t k = place; k > 0; --k) {
    recent[k] = recent[k - 1];
  }
  recent[0] = stack;
  return stack;
}

// The release a transient CALL stands for after its allocation `call` (docs/format.md).
void CompactReader::emit_transient_release(CallRecord& call, bool with_stack) {
  call.call.kind = CallKind::Free;
  call.call.size = 0;
  call.call.index = ++call_count_;
  if (!with_stack) {
    call.frames = {};
  }
  call.arguments = {};
  remember_resource(CallKind::Free, call.call.resource_id);
  sink_.call(call);
}

void CompactReader::read_call_fields_v1(std::uint8_t /*flags*/, RecordCursor& record,
                                        CallRecord& call) {
  call.call.resource_type = record.u32("the resource type");
  call.call.context = record.u32("the context");
  previous_timestamp_ = compact::undelta(record.varint("the timestamp"), previous_timestamp_);
  call.call.timestamp_ns = previous_timestamp_ * time_unit_ns_;
  std::uint64_t& previous_resource = threads_[slot_].previous_resource;
  previous_resource = compact::undelta(record.varint("the resource id"), previous_resource);
  call.call.resource_id = previous_resource;
  call.call.size = record.varint("the size");
}

// Version 2: type, context and timestamp only when they change; the resource maybe by reference.
void CompactReader::read_call_fields_v2(std::uint8_t flags, RecordCursor& record,
                                        CallRecord& call) {
  if ((flags & compact::kCallHasTypeAndContext) != 0) {
    previous_type_ = record.u32("the resource type");
    previous_context_ = record.u32("the context");
  }
  call.call.resource_type = previous_type_;
  call.call.context = previous_context_;
  if ((flags & compact::kCallHasTimestamp) != 0) {
    previous_timestamp_ = compact::undelta(record.varint("the timestamp"), previous_timestamp_);
  }
  call.call.timestamp_ns = previous_timestamp_ * time_unit_ns_;
  const auto kind = static_cast<std::uint8_t>(call.call.kind);
  std::uint64_t& previous_resource = threads_[slot_].previous_resource;
  if ((flags & compact::kCallResourceReference) != 0) {
    previous_resource = referred_resource(kind, record);
  } else {
    previous_resource = compact::undelta(record.varint("the resource id"), previous_resource);
  }
  call.call.resource_id = previous_resource;
  call.call.size = read_size(record);
  remember_resource(call.call.kind, previous_resource);
}

// Version 5 writes the size against the slot's last nonzero one (compact::size_field).
std::uint64_t CompactReader::read_size(RecordCursor& record) {
  const std::uint64_t field = record.varint("the size");
  if (major_ < compact::kFirstSizeBaseMajor) {
    return field;
  }
  std::uint64_t& base = threads_[slot_].size_base;
  const std::uint64_t size = compact::size_of_field(field, base);
  base = compact::next_size_base(base, size);
  return size;
}

// A release's reference counts allocations back (1: the latest), an allocation's releases.
std::uint64_t CompactReader::referred_resource(std::uint8_t kind, RecordCursor& record) {
  const std::uint64_t back = record.varint("the resource reference");
  const bool release = kind == compact::kReleaseKind;
  if (!release && kind != compact::kAllocationKind) {
    record.fail(fmt::format("a resource reference in a call of kind {}", kind));
  }
  const ThreadState& state = threads_[slot_];
  const std::uint64_t count = release ? state.allocations : state.releases;
  if (back == 0 || back > count || back > compact::kResourceWindow) {
    record.fail(fmt::format("resource reference {} to no earlier {} (of {})", back,
                            release ? "allocation" : "release", count));
  }
  const std::vector<std::uint64_t>& ring = release ? state.allocated : state.released;
  return ring[(count - back) % compact::kResourceWindow];
}

void CompactReader::remember_resource(CallKind kind, std::uint64_t resource_id) {
  const bool release = kind == CallKind::Free;
  if (!release && kind != CallKind::Alloc) {
    return;
  }
  ThreadState& state = threads_[slot_];
  std::vector<std::uint64_t>& ring = release ? state.released : state.allocated;
  std::uint64_t& count = release ? state.releases : state.allocations;
  if (ring.size() < compact::kResourceWindow) {
    ring.push_back(resource_id);  // ring.size() == count: the calls so far
  } else {
    ring[count % compact::kResourceWindow] = resource_id;
  }
  ++count;
}

// THREAD (version 4): `slot << 1 | new_tid`, then the slot's thread id when new_tid.
void CompactReader::read_thread(RecordCursor& record) {
  const std::uint64_t field = record.varint("the thread slot");
  switch_thread(field >> 1, record);
  if ((field & 1) != 0) {
    threads_[slot_].tid = record.varint("the thread id");
  }
}

void CompactReader::switch_thread(std::uint64_t slot, RecordCursor& record) {
  if (slot >= compact::kThreadSlots) {
    record.fail(
        fmt::format("thread slot {} out of range (at most {})", slot, compact::kThreadSlots - 1));
  }
  if (slot >= threads_.size()) {
    threads_.resize(static_cast<std::size_t>(slot) + 1);
  }
  slot_ = static_cast<std::size_t>(slot);
}

// Version 4's bare switch: one byte with the slot in bits 3 to 6, or kThreadSwitchVarint there
// and the slot as a varint after it.
Step CompactReader::read_thread_switch(std::span<const std::uint8_t> bytes, std::uint64_t offset,
                                       std::size_t& size) {
  const unsigned inline_slot = (bytes[0] >> compact::kThreadSwitchShift) & 0x0F;
  std::uint64_t slot = inline_slot;
  std::size_t pos = 1;
  if (inline_slot == compact::kThreadSwitchVarint && !skip_varint(bytes, pos, slot, offset)) {
    size = pos + 1;
    return Step::Incomplete;
  }
  size = pos;
  RecordCursor record(bytes.subspan(0, size), offset);
  switch_thread(slot, record);
  return Step::Done;
}

void CompactReader::read_note(RecordCursor& record) {
  warn(record.record_offset(), fmt::format("writer's note: {}", record.string("the note")));
}

// LEAK_KINDS: pid, count, then per block its address's delta from the one before and its kind.
void CompactReader::read_leak_kinds(RecordCursor& record) {
  LeakKinds kinds;
  const std::uint64_t pid = record.varint("the leak check's pid");
  if (pid > 0xFFFFFFFF) {
    record.fail(fmt::format("pid {} out of range", pid));
  }
  kinds.pid = static_cast<std::uint32_t>(pid);
  const std::uint64_t count = record.varint("the leak check's block count");
  if (count > record.remaining() / 2) {  // two bytes a block at least
    record.fail(fmt::format("{} blocks do not fit the record", count));
  }
  leak_blocks_.clear();
  std::uint64_t address = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    address += record.varint("a block's address");
    const std::uint64_t kind = record.varint("a block's leak kind");
    if (kind == 0 || kind > compact::kLastLeakKind) {
      record.fail(fmt::format("unknown leak kind {}", kind));
    }
    leak_blocks_.push_back({address, static_cast<LeakKind>(kind)});
  }
  kinds.blocks = leak_blocks_;
  sink_.leak_kinds(kinds);
}

void CompactReader::read_heap_info(RecordCursor& record) {
  HeapInfo info;
  info.heap_bottom = record.varint("the heap bottom");
  info.heap_top = record.varint("the heap top");
  info.lowest_block = record.varint("the lowest block");
  info.highest_block = record.varint("the highest block");
  for (std::uint32_t* field :
       {&info.arena, &info.ordblks, &info.smblks, &info.hblks, &info.hblkhd, &info.usmblks,
        &info.fsmblks, &info.uordblks, &info.fordblks, &info.keepcost}) {
    *field = record.u32("a heap statistic");
  }
  sink_.heap_info(info);
}

void CompactReader::read_output(RecordCursor& record) {
  OutputSettings settings;
  settings.path = record.string("the output path");
  settings.options = record.string("the output options");
  sink_.output_settings(settings);
}

void CompactReader::read_attachment(RecordCursor& record) {
  Attachment attachment;
  attachment.name = record.string("the attachment name");
  attachment.path = record.string("the attachment path");
  sink_.attachment(attachment);
}

void CompactReader::read_reset(RecordCursor& record) {
  const std::uint64_t table = record.varint("the table");
  if (table == static_cast<std::uint8_t>(compact::Table::Functions)) {
    functions_.clear();
  } else if (table == static_cast<std::uint8_t>(compact::Table::Stacks)) {
    stacks_.clear();
    stack_frames_.clear();
    for (ThreadState& state : threads_) {
      std::fill(std::begin(state.recent_stacks), std::end(state.recent_stacks), 0);
    }
  } else {
    record.fail(fmt::format("unknown table {} to reset", table));
  }
}

// The model's TraceEnd; "unknown" (a trace converted from a format without one) passes nothing
// on. The end time is in the trace's own clock, not the wall clock the model keeps: left out.
void CompactReader::read_end(RecordCursor& record) {
  const std::uint64_t reason = record.varint("the end reason");
  if (reason > compact::kLastEndReason) {
    record.fail(fmt::format("unknown end reason {}", reason));
  }
  TraceEnd end;
  end.pid = pid_;
  end.signal = record.u32("the signal");
  end.peak_rss_bytes = record.varint("the peak RSS");
  end.rss_bytes = record.varint("the final RSS");
  record.varint("the end time");
  if (major_ >= compact::kFirstWallClockMajor && record.remaining() > 0) {
    end.time.seconds = compact::unzigzag(record.varint("the end's wall-clock seconds"));
    end.time.microseconds = record.u32("the end's wall-clock microseconds");
    if (end.time.microseconds >= 1'000'000) {
      record.fail(fmt::format("wall-clock microseconds {} out of range", end.time.microseconds));
    }
  }
  ended_ = true;
  if (reason != static_cast<std::uint64_t>(compact::EndReason::Unknown)) {
    // The compact format numbers its reasons as the model does (docs/format.md).
    end.reason = static_cast<EndReason>(reason);
    sink_.trace_end(end);
  }
}

void CompactReader::skip_unknown(std::uint8_t tag, std::uint64_t offset) {
  if (std::find(unknown_tags_.begin(), unknown_tags_.end(), tag) != unknown_tags_.end()) {
    return;
  }
  unknown_tags_.push_back(tag);
  warn(offset, fmt::format("unknown record tag {:#04x} skipped", tag));
}

}  // namespace

void read_compact(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  CompactReader(input, sink, diagnostics).run();
}

bool compact_has_late_maps(InputStream& input) {
  DiscardingSink nowhere;
  CollectingDiagnostics quiet;
  return CompactReader(input, nowhere, quiet).any_mapping_after_a_call();
}

std::vector<Mapping> read_compact_late_maps(InputStream& input) {
  class LateMaps final : public TraceSink {
   public:
    void call(const CallRecord& /*record*/) override { seen_call_ = true; }
    void mapping(const Mapping& mapping) override {
      if (seen_call_ && maps.size() < kMaxLateMaps) {
        maps.push_back(mapping);
      }
    }
    void finish() override {}
    std::vector<Mapping> maps;

   private:
    bool seen_call_ = false;
  } sink;
  CollectingDiagnostics quiet;
  try {
    CompactReader(input, sink, quiet).run();
  } catch (const InputError&) {
    // The maps before the damage are kept; the other pass stops at the same place.
  }
  return std::move(sink.maps);
}

}  // namespace rtrace
