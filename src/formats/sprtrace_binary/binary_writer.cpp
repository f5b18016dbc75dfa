#include "formats/sprtrace_binary/binary_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <string_view>

#include "formats/sprtrace_binary/handshake.h"
#include "protocol/sprtrace_packets.h"

namespace rtrace {
namespace {

using sprtrace::PacketType;

// The architecture a default handshake names: the machine we run on, as the tracer would.
constexpr std::string_view kBuildArch =
#if defined(__x86_64__)
    "x86_64";
#elif defined(__i386__)
    "i386";
#elif defined(__aarch64__)
    "aarch64";
#elif defined(__arm__)
    "arm";
#else
    "unknown";
#endif

// The longest text whose padded length still fits the 16-bit length field.
constexpr std::size_t kMaxStringText = 0xFFFF - 1;
constexpr std::uint64_t kNanosecondsPerMillisecond = 1'000'000;

std::uint32_t call_kind_code(CallKind kind) {
  switch (kind) {
    case CallKind::Free:
      return sprtrace::kCallFree;
    case CallKind::Alloc:
      return sprtrace::kCallAlloc;
    case CallKind::Other:
    case CallKind::Enter:
    case CallKind::Exit:
      break;
  }
  return 0;
}

}  // namespace

// Appends packets straight to the output buffer, in the byte order and pointer size of the
// trace's handshake. A packet is begun, filled, and then its size field is patched in.
//
// Fields are stored through a cursor into room made ahead (kRoom bytes at a time, one resize for
// a whole call and its three packets) instead of one resize per field, which cost a capacity
// check and a length update per dword; commit() gives the buffer back its true length, before
// anything else looks at it.
class BinaryWriter::Encoder {
 public:
  explicit Encoder(std::string& out) : out_(out) {}

  bool has_handshake() const { return has_handshake_; }

  void handshake(const sprtrace::Handshake& h) {
    commit();
    has_handshake_ = true;
    swap_ = h.big_endian != (std::endian::native == std::endian::big);
    pointer_size_ = h.pointer_size == 4 ? 4 : 8;
    const sprtrace::Handshake written{.major = sprtrace::kWrittenMajor,
                                      .minor = sprtrace::kWrittenMinor,
                                      .arch = h.arch,
                                      .big_endian = h.big_endian,
                                      .pointer_size = pointer_size_};
    const std::size_t start = out_.size();
    out_.resize(start + sprtrace::handshake_size(sprtrace::kMaxArchLength));
    out_.resize(start + sprtrace::write_handshake(written, out_.data() + start));
  }

  void begin(PacketType type) {
    dword(static_cast<std::uint32_t>(type));
    size_at_ = written();
    dword(0);
  }

  void end() {
    const auto size = static_cast<std::uint32_t>(written() - size_at_ - 4);
    const std::uint32_t field = swap_ ? __builtin_bswap32(size) : size;
    std::memcpy(out_.data() + size_at_, &field, sizeof field);
  }

  // The buffer's length is what was written; the room made ahead is dropped.
  void commit() {
    if (cursor_ != nullptr) {
      out_.resize(written());
      cursor_ = limit_ = nullptr;
    }
  }

  void dword(std::uint32_t value) { append(swap_ ? __builtin_bswap32(value) : value); }
  void qword(std::uint64_t value) { append(swap_ ? __builtin_bswap64(value) : value); }

  void pointer(Address value) {
    if (pointer_size_ == 4) {
      return dword(static_cast<std::uint32_t>(value));
    }
    append(swap_ ? __builtin_bswap64(value) : value);
  }

  // As the tracer writes it: the text, then NUL padding to the next 4-byte boundary, with the
  // padding counted in the length. Text after an embedded NUL could not be read back: dropped.
  void string(std::string_view text) {
    text = text.substr(0, std::min(text.find('\0'), kMaxStringText));
    const std::size_t length = sprtrace::padded_string_length(text.size());
    const auto length16 = static_cast<std::uint16_t>(length);
    append(swap_ ? static_cast<std::uint16_t>((length16 >> 8) | (length16 << 8)) : length16);
    make_room(length);
    if (!text.empty()) {  // an empty view's data() may be null, which memcpy must not get
      std::memcpy(cursor_, text.data(), text.size());
    }
    std::memset(cursor_ + text.size(), 0, length - text.size());
    cursor_ += length;
  }

 private:
  // Room made at a time: a call and a backtrace of 16 frames fit.
  static constexpr std::size_t kRoom = 256;

  std::size_t written() const {
    return cursor_ != nullptr ? static_cast<std::size_t>(cursor_ - out_.data()) : out_.size();
  }

  void make_room(std::size_t n) {
    if (static_cast<std::size_t>(limit_ - cursor_) < n) {
      grow(n);
    }
  }

  // Out of line, so that every field's store inlines into the packet that writes it.
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t at = written();
    out_.resize(at + std::max(n, kRoom));
    cursor_ = out_.data() + at;
    limit_ = out_.data() + out_.size();
  }

  template <typename T>
  void append(T value) {
    make_room(sizeof value);
    std::memcpy(cursor_, &value, sizeof value);
    cursor_ += sizeof value;
  }

  std::string& out_;
  char* cursor_ = nullptr;  // where the next byte goes, while room is made ahead
  char* limit_ = nullptr;   // the end of that room
  bool has_handshake_ = false;
  bool swap_ = false;
  std::uint8_t pointer_size_ = 8;
  std::size_t size_at_ = 0;
};

BinaryWriter::BinaryWriter(OutputStream& out)
    : out_(out), encoder_(std::make_unique<Encoder>(out.buffer())) {}

BinaryWriter::~BinaryWriter() = default;

void BinaryWriter::header(const TraceHeader& header) {
  encoder_->handshake(sprtrace::handshake_for(header));
  out_.maybe_flush();
}

void BinaryWriter::process(const ProcessInfo& info) {
  start_record();
  encoder_->begin(PacketType::ProcessInfo);
  encoder_->dword(info.pid);
  encoder_->dword(static_cast<std::uint32_t>(info.start.seconds));
  encoder_->dword(info.start.microseconds);
  encoder_->dword(info.backtrace_depth.value_or(0));
  encoder_->string(info.name);
  end_record();
  if (info.command_line) {
    write_command_line(info.pid, *info.command_line);
  }
}

// RCMD (protocol/sprtrace_packets.h): an argument too long for the 16-bit string length is cut, and
// so marked.
void BinaryWriter::write_command_line(std::uint32_t pid, const CommandLine& command_line) {
  bool cut = command_line.cut;
  for (const std::string& argument : command_line.arguments) {
    cut = cut || argument.size() > kMaxStringText || argument.find('\0') != std::string::npos;
  }
  encoder_->begin(PacketType::CommandLine);
  encoder_->dword(pid);
  encoder_->dword(cut ? sprtrace::kCommandLineCut : 0);
  encoder_->dword(static_cast<std::uint32_t>(command_line.arguments.size()));
  for (const std::string& argument : command_line.arguments) {
    encoder_->string(argument);
  }
  end_record();
}

void BinaryWriter::trace_end(const TraceEnd& end) {
  start_record();
  encoder_->begin(PacketType::TraceEnd);
  encoder_->dword(end.pid);
  encoder_->dword(static_cast<std::uint32_t>(end.reason));
  encoder_->dword(end.signal);
  encoder_->dword(static_cast<std::uint32_t>(end.time.seconds));
  encoder_->dword(end.time.microseconds);
  encoder_->qword(end.peak_rss_bytes);
  encoder_->qword(end.rss_bytes);
  end_record();
}

void BinaryWriter::output_settings(const OutputSettings& settings) {
  start_record();
  encoder_->begin(PacketType::OutputSettings);
  encoder_->string(settings.path);
  encoder_->string(settings.options);
  end_record();
}

void BinaryWriter::module(const ModuleInfo& module) {
  start_record();
  encoder_->begin(PacketType::ModuleInfo);
  encoder_->dword(module.id);
  encoder_->dword(sprtrace::module_version(module.version_major, module.version_minor));
  encoder_->string(module.name);
  end_record();
}

void BinaryWriter::mapping(const Mapping& mapping) {
  start_record();
  encoder_->begin(PacketType::MemoryMap);
  encoder_->pointer(mapping.from);
  encoder_->pointer(mapping.to);
  encoder_->string(mapping.path);
  end_record();
}

void BinaryWriter::context(const ContextInfo& context) {
  start_record();
  encoder_->begin(PacketType::ContextRegistry);
  encoder_->dword(context.id);
  encoder_->string(context.name);
  end_record();
}

void BinaryWriter::resource_type(const ResourceType& type) {
  start_record();
  encoder_->begin(PacketType::ResourceRegistry);
  encoder_->dword(type.id);
  encoder_->dword(type.flags);
  encoder_->string(type.type);
  encoder_->string(type.description);
  end_record();
}

void BinaryWriter::call(const CallRecord& record) {
  start_record();
  write_call(record);
  encoder_->commit();
  out_.maybe_flush();
}

// CALL (then RSIZ for a size of 4 GiB or more), then ARGS when there are arguments, then BTRC
// (empty when there is no backtrace), as the tracer sends them.
void BinaryWriter::write_call(const CallRecord& record) {
  const Call& call = record.call;
  encoder_->begin(PacketType::FunctionCall);
  encoder_->dword(call.resource_type);
  encoder_->dword(call.context);
  // The protocol's clock is a 32-bit millisecond count.
  encoder_->dword(static_cast<std::uint32_t>(call.timestamp_ns / kNanosecondsPerMillisecond));
  encoder_->dword(call_kind_code(call.kind));
  encoder_->string(record.function);
  const bool wide = sprtrace::needs_call_size_packet(call.size);
  encoder_->dword(wide ? sprtrace::kCappedCallSize : static_cast<std::uint32_t>(call.size));
  encoder_->pointer(call.resource_id);
  encoder_->end();
  if (wide) {  // the real size, which the CALL's 4-byte field cannot hold (RSIZ, rtrace's own)
    encoder_->begin(PacketType::CallSize);
    encoder_->qword(call.size);
    encoder_->end();
  }

  if (!record.arguments.empty()) {
    encoder_->begin(PacketType::FunctionArgs);
    encoder_->dword(static_cast<std::uint32_t>(record.arguments.size()));
    for (const Argument& argument : record.arguments) {
      encoder_->string(argument.name);
      encoder_->string(argument.value);
    }
    encoder_->end();
  }

  encoder_->begin(PacketType::Backtrace);
  // Symbols have no binary form: frames go as their addresses.
  encoder_->dword(static_cast<std::uint32_t>(record.frames.size()));
  for (const Frame& frame : record.frames) {
    encoder_->pointer(frame.address);
  }
  encoder_->end();
}

void BinaryWriter::heap_info(const HeapInfo& info) {
  start_record();
  encoder_->begin(PacketType::HeapInfo);
  encoder_->pointer(info.heap_bottom);
  encoder_->pointer(info.heap_top);
  for (const std::uint32_t field :
       {info.arena, info.ordblks, info.smblks, info.hblks, info.hblkhd, info.usmblks, info.fsmblks,
        info.uordblks, info.fordblks, info.keepcost}) {
    encoder_->dword(field);
  }
  end_record();
}

void BinaryWriter::attachment(const Attachment& attachment) {
  start_record();
  encoder_->begin(PacketType::FileAttachment);
  encoder_->string(attachment.name);
  encoder_->string(attachment.path);
  end_record();
}

void BinaryWriter::finish() {
  start_record();  // even an empty trace gets its handshake
  encoder_->commit();
  out_.flush();
}

// Records that arrive before any handshake get the default one (2.0, this machine,
// little-endian, 8-byte pointers).
void BinaryWriter::start_record() {
  if (encoder_->has_handshake()) {
    return;
  }
  sprtrace::Handshake defaults;
  defaults.arch = kBuildArch;
  encoder_->handshake(defaults);
}

void BinaryWriter::end_record() {
  encoder_->end();
  encoder_->commit();
  out_.maybe_flush();
}

}  // namespace rtrace
