#include "formats/apitrace/decoder.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/apitrace/byte_cursor.h"
#include "formats/apitrace/call_flags.h"

namespace rtrace::apitrace {
namespace {

enum Event : std::uint8_t { kEnter = 0x00, kLeave = 0x01 };
enum Detail : std::uint8_t {
  kDetailEnd = 0x00,
  kDetailArg = 0x01,
  kDetailReturn = 0x02,
  kDetailThread = 0x03,  // version < 4
  kDetailBacktrace = 0x04,
  kDetailFlags = 0x05,
};
enum Type : std::uint8_t {
  kNull = 0x00,
  kFalse = 0x01,
  kTrue = 0x02,
  kSInt = 0x03,
  kUInt = 0x04,
  kFloat = 0x05,
  kDouble = 0x06,
  kString = 0x07,
  kBlob = 0x08,
  kEnum = 0x09,
  kBitmask = 0x0a,
  kArray = 0x0b,
  kStruct = 0x0c,
  kOpaque = 0x0d,
  kRepr = 0x0e,
  kWString = 0x0f,
};
enum FrameDetail : std::uint8_t {
  kFrameEnd = 0x00,
  kFrameModule = 0x01,
  kFrameFunction = 0x02,
  kFrameFile = 0x03,
  kFrameLine = 0x04,
  kFrameOffset = 0x05,
};
constexpr std::uint64_t kWriterFlagFake = 1;

// Damage found while parsing an event: where (from the start of the event) and what.
struct Corrupt {
  std::size_t position;
  std::string message;
};

Api api_of(std::string_view name) {
  const auto upper = [&](std::size_t i) {
    return name.size() > i && name[i] >= 'A' && name[i] <= 'Z';
  };
  if (name.starts_with("glX") || (name.starts_with("wgl") && upper(3)) || name.starts_with("CGL")) {
    return Api::Gl;
  }
  if (name.starts_with("egl") && upper(3)) {
    return Api::Egl;
  }
  if (name.starts_with("Direct") || name.starts_with("D3D") || name.starts_with("Create")) {
    return Api::Dx;
  }
  return Api::Unknown;
}

}  // namespace

const char* api_name(Api api) {
  switch (api) {
    case Api::Gl:
      return "OpenGL + GLX/WGL/CGL";
    case Api::Egl:
      return "OpenGL/GLES1/GLES2/VG + EGL";
    case Api::Dx:
      return "DirectX";
    case Api::Unknown:
      break;
  }
  return "Unknown API";
}

// Everything the stream defines once and refers to by id afterwards. Definitions made while
// parsing an event are remembered until the event completes, so that parsing it again (after
// buffering more of it) starts from the same state.
struct Decoder::Signatures {
  template <typename T>
  using Table = std::unordered_map<std::uint64_t, std::unique_ptr<T>>;
  Table<FunctionSignature> functions;
  Table<EnumSignature> enums;
  Table<BitmaskSignature> bitmasks;
  Table<StructSignature> structs;
  Table<StackFrame> frames;
  std::size_t bytes = 0;
  const FunctionSignature* get_error = nullptr;  // glGetError(), whose GL_NO_ERROR is verbose

  enum class Kind : std::uint8_t { Function, Enum, Bitmask, Struct, Frame };
  std::vector<std::pair<Kind, std::uint64_t>> provisional;
  std::size_t provisional_bytes = 0;

  void commit() {
    provisional.clear();
    provisional_bytes = 0;
  }
  void roll_back() {
    for (const auto& [kind, id] : provisional) {
      switch (kind) {
        case Kind::Function:
          if (get_error == functions[id].get()) {
            get_error = nullptr;
          }
          functions.erase(id);
          break;
        case Kind::Enum:
          enums.erase(id);
          break;
        case Kind::Bitmask:
          bitmasks.erase(id);
          break;
        case Kind::Struct:
          structs.erase(id);
          break;
        case Kind::Frame:
          frames.erase(id);
          break;
      }
    }
    bytes -= provisional_bytes;
    commit();
  }
};

// Parses one event (or the header) from buffered bytes into the decoder's state.
class Decoder::EventParser {
 public:
  EventParser(Decoder& decoder, std::span<const std::uint8_t> bytes)
      : d_(decoder), sigs_(*decoder.signatures_), in_(bytes) {}

  std::size_t consumed() const { return in_.position(); }

  void header(TraceHeader& header) {
    header.version = in_.uint();
    if (header.version > kMaxVersion) {
      corrupt(0, fmt::format("unsupported apitrace trace version {} (rtrace reads 0 to {}); "
                             "not an apitrace trace?",
                             header.version, kMaxVersion));
    }
    header.semantic_version = header.version;
    if (header.version >= 6) {
      const std::size_t at = in_.position();
      header.semantic_version = in_.uint();
      if (header.semantic_version > header.version) {
        corrupt(at, fmt::format("semantic version {} is newer than the trace version {}",
                                header.semantic_version, header.version));
      }
      for (;;) {
        std::string name(in_.string());
        if (name.empty()) {
          break;
        }
        std::string value(in_.string());
        header.properties.emplace_back(std::move(name), std::move(value));
      }
    }
  }

  // Returns the call this event completes, if any.
  Call* event() {
    const std::size_t at = in_.position();
    const std::uint8_t event = in_.byte();
    if (event == kEnter) {
      return enter();
    }
    if (event == kLeave) {
      return leave();
    }
    corrupt(at, fmt::format("unknown event 0x{:02x} (expected 0x00 enter or 0x01 leave)", event));
  }

 private:
  std::uint64_t version() const { return d_.header_.version; }

  [[noreturn]] static void corrupt(std::size_t position, std::string message) {
    throw Corrupt{position, std::move(message)};
  }

  void account(std::size_t bytes, Signatures::Kind kind, std::uint64_t id, std::size_t at) {
    sigs_.provisional.emplace_back(kind, id);
    sigs_.provisional_bytes += bytes;
    sigs_.bytes += bytes;
    if (sigs_.bytes > d_.limits_.max_signature_bytes) {
      corrupt(at, fmt::format("the signatures defined so far take more than {} bytes "
                              "(rtrace's limit; corrupt trace?)",
                              d_.limits_.max_signature_bytes));
    }
  }

  Call* enter() {
    Call* call = d_.take_call();
    try {
      call->thread = version() >= 4 ? in_.uint() : 0;
      call->signature = function_signature();
      call->flags = call->signature->flags;
      call->args.assign(call->signature->arg_names.size(), -1);
      details(*call);
    } catch (...) {
      d_.recycle(call);
      throw;
    }
    if (d_.in_flight_.size() >= kMaxCallsInFlight) {
      d_.recycle(call);
      corrupt(0, fmt::format("more than {} calls entered and not left (corrupt trace?)",
                             kMaxCallsInFlight));
    }
    call->number = d_.next_call_number_++;
    d_.in_flight_.push_back(call);
    return nullptr;
  }

  Call* leave() {
    const std::size_t at = in_.position();
    const std::uint64_t number = in_.uint();
    const auto it = std::find_if(d_.in_flight_.begin(), d_.in_flight_.end(),
                                 [&](const Call* c) { return c->number == number; });
    if (it == d_.in_flight_.end()) {
      // apitrace skips such a leave; read it to stay in step, and say so.
      Call* stray = d_.take_call();
      try {
        details(*stray);
      } catch (...) {
        d_.recycle(stray);
        throw;
      }
      d_.recycle(stray);
      d_.diagnostics_.warning(
          d_.stream_.name(), d_.stream_.offset() + at,
          fmt::format("leave of call {}, which was not entered (ignored)", number));
      return nullptr;
    }
    Call* call = *it;
    // Parsing may be repeated once more bytes are buffered: start again from the enter's state.
    const Snapshot before(*call);
    try {
      details(*call);
    } catch (...) {
      before.restore(*call);
      throw;
    }
    d_.in_flight_.erase(it);
    return call;
  }

  struct Snapshot {
    explicit Snapshot(const Call& call)
        : values(call.values.size()),
          bytes(call.bytes.size()),
          units(call.units.size()),
          args(call.args),
          ret(call.ret),
          backtrace(call.backtrace),
          has_backtrace(call.has_backtrace),
          flags(call.flags),
          thread(call.thread) {}
    void restore(Call& call) const {
      call.values.resize(values);
      call.bytes.resize(bytes);
      call.units.resize(units);
      call.args = args;
      call.ret = ret;
      call.backtrace = backtrace;
      call.has_backtrace = has_backtrace;
      call.flags = flags;
      call.thread = thread;
    }
    std::size_t values, bytes, units;
    std::vector<std::int32_t> args;
    std::int32_t ret;
    std::vector<const StackFrame*> backtrace;
    bool has_backtrace;
    std::uint32_t flags;
    std::uint64_t thread;
  };

  void details(Call& call) {
    current_ = &call;
    for (;;) {
      const std::size_t at = in_.position();
      const std::uint8_t detail = in_.byte();
      switch (detail) {
        case kDetailEnd:
          return;
        case kDetailArg: {
          const std::uint64_t index = in_.uint();
          if (call.signature != nullptr && index >= call.args.size()) {
            corrupt(at, fmt::format("argument number {} of {}, which has {} argument(s)", index,
                                    call.signature->name, call.args.size()));
          }
          const std::int32_t value = this->value(0);
          if (call.signature != nullptr) {
            call.args[index] = value;
          }
          break;
        }
        case kDetailReturn:
          call.ret = value(0);
          break;
        case kDetailThread:
          call.thread = in_.uint();
          break;
        case kDetailBacktrace:
          backtrace(call);
          break;
        case kDetailFlags:
          if ((in_.uint() & kWriterFlagFake) != 0) {
            call.flags |= kFlagFake;
          }
          break;
        default:
          corrupt(at, fmt::format("unknown call detail 0x{:02x}", detail));
      }
    }
  }

  void backtrace(Call& call) {
    const std::uint64_t count = in_.count();
    call.backtrace.clear();
    call.has_backtrace = true;
    for (std::uint64_t i = 0; i < count; ++i) {
      call.backtrace.push_back(frame());
    }
  }

  const StackFrame* frame() {
    const std::size_t at = in_.position();
    const std::uint64_t id = in_.uint();
    if (const auto it = sigs_.frames.find(id); it != sigs_.frames.end()) {
      return it->second.get();
    }
    auto frame = std::make_unique<StackFrame>();
    std::size_t bytes = sizeof(StackFrame);
    for (;;) {
      const std::size_t detail_at = in_.position();
      const std::uint8_t detail = in_.byte();
      if (detail == kFrameEnd) {
        break;
      }
      switch (detail) {
        case kFrameModule:
          frame->module = std::string(in_.string());
          bytes += frame->module->size();
          break;
        case kFrameFunction:
          frame->function = std::string(in_.string());
          bytes += frame->function->size();
          break;
        case kFrameFile:
          frame->file = std::string(in_.string());
          bytes += frame->file->size();
          break;
        case kFrameLine:
          frame->line = in_.uint();
          break;
        case kFrameOffset:
          frame->offset = in_.uint();
          break;
        default:
          corrupt(detail_at, fmt::format("unknown backtrace frame detail 0x{:02x}", detail));
      }
    }
    const StackFrame* result = frame.get();
    sigs_.frames.emplace(id, std::move(frame));
    account(bytes, Signatures::Kind::Frame, id, at);
    return result;
  }

  const FunctionSignature* function_signature() {
    const std::size_t at = in_.position();
    const std::uint64_t id = in_.uint();
    if (const auto it = sigs_.functions.find(id); it != sigs_.functions.end()) {
      return it->second.get();
    }
    auto sig = std::make_unique<FunctionSignature>();
    sig->name = std::string(in_.string());
    const std::uint64_t count = in_.count();
    std::size_t bytes = sizeof(FunctionSignature) + sig->name.size();
    sig->arg_names.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      sig->arg_names.emplace_back(in_.string());
      bytes += sig->arg_names.back().size() + sizeof(std::string);
    }
    sig->flags = call_flags_for(sig->name);
    if (sig->name == "glGetError" && sig->arg_names.empty()) {
      sigs_.get_error = sig.get();
    }
    if (d_.api_ == Api::Unknown) {
      d_.api_ = api_of(sig->name);
    }
    const FunctionSignature* result = sig.get();
    sigs_.functions.emplace(id, std::move(sig));
    account(bytes, Signatures::Kind::Function, id, at);
    return result;
  }

  // A typed signed integer: 0x03 magnitude (negative) or 0x04 value.
  std::int64_t typed_sint() {
    const std::size_t at = in_.position();
    const std::uint8_t type = in_.byte();
    if (type == kSInt) {
      return static_cast<std::int64_t>(0 - in_.uint());
    }
    if (type == kUInt) {
      return static_cast<std::int64_t>(in_.uint());
    }
    corrupt(at, fmt::format("expected an integer (type 0x03 or 0x04), found type 0x{:02x}", type));
  }

  const EnumSignature* enum_signature() {
    const std::size_t at = in_.position();
    const std::uint64_t id = in_.uint();
    if (const auto it = sigs_.enums.find(id); it != sigs_.enums.end()) {
      return it->second.get();
    }
    auto sig = std::make_unique<EnumSignature>();
    std::size_t bytes = sizeof(EnumSignature);
    // Before version 3 a signature held one name/value pair and no count.
    const std::uint64_t count = version() >= 3 ? in_.count() : 1;
    sig->values.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string name(in_.string());
      bytes += name.size() + sizeof(sig->values[0]);
      sig->values.emplace_back(std::move(name), typed_sint());
    }
    const EnumSignature* result = sig.get();
    sigs_.enums.emplace(id, std::move(sig));
    account(bytes, Signatures::Kind::Enum, id, at);
    return result;
  }

  const BitmaskSignature* bitmask_signature() {
    const std::size_t at = in_.position();
    const std::uint64_t id = in_.uint();
    if (const auto it = sigs_.bitmasks.find(id); it != sigs_.bitmasks.end()) {
      return it->second.get();
    }
    auto sig = std::make_unique<BitmaskSignature>();
    const std::uint64_t count = in_.count();
    std::size_t bytes = sizeof(BitmaskSignature);
    sig->flags.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string name(in_.string());
      bytes += name.size() + sizeof(sig->flags[0]);
      sig->flags.emplace_back(std::move(name), in_.uint());
    }
    const BitmaskSignature* result = sig.get();
    sigs_.bitmasks.emplace(id, std::move(sig));
    account(bytes, Signatures::Kind::Bitmask, id, at);
    return result;
  }

  const StructSignature* struct_signature() {
    const std::size_t at = in_.position();
    const std::uint64_t id = in_.uint();
    if (const auto it = sigs_.structs.find(id); it != sigs_.structs.end()) {
      return it->second.get();
    }
    auto sig = std::make_unique<StructSignature>();
    sig->name = std::string(in_.string());
    const std::uint64_t count = in_.count();
    std::size_t bytes = sizeof(StructSignature) + sig->name.size();
    sig->member_names.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      sig->member_names.emplace_back(in_.string());
      bytes += sig->member_names.back().size() + sizeof(std::string);
    }
    const StructSignature* result = sig.get();
    sigs_.structs.emplace(id, std::move(sig));
    account(bytes, Signatures::Kind::Struct, id, at);
    return result;
  }

  // Reserves `n` consecutive value nodes (children of one parent); returns the first index.
  std::uint32_t reserve(Call& call, std::uint64_t n) {
    const std::size_t first = call.values.size();
    call.values.resize(first + static_cast<std::size_t>(n));
    return static_cast<std::uint32_t>(first);
  }

  std::int32_t value(unsigned depth) {
    Call& call = *current_;
    const std::uint32_t index = reserve(call, 1);
    fill(index, depth);
    return static_cast<std::int32_t>(index);
  }

  // Parses one value into the node `index` of the current call.
  void fill(std::uint32_t index, unsigned depth) {
    Call& call = *current_;
    const std::size_t at = in_.position();
    if (depth > kMaxNesting) {
      corrupt(at, fmt::format("values nested more than {} deep (corrupt trace?)", kMaxNesting));
    }
    const std::uint8_t type = in_.byte();
    Value v;
    switch (type) {
      case kNull:
        v.kind = ValueKind::Null;
        break;
      case kFalse:
      case kTrue:
        v.kind = ValueKind::Bool;
        v.number.boolean = type == kTrue;
        break;
      case kSInt:
        v.kind = ValueKind::SInt;
        v.number.sint = static_cast<std::int64_t>(0 - in_.uint());
        break;
      case kUInt:
        v.kind = ValueKind::UInt;
        v.number.uint = in_.uint();
        break;
      case kFloat:
        v.kind = ValueKind::Float;
        v.number.single = in_.raw<float>();
        break;
      case kDouble:
        v.kind = ValueKind::Double;
        v.number.real = in_.raw<double>();
        break;
      case kString:
      case kBlob: {
        v.kind = type == kString ? ValueKind::String : ValueKind::Blob;
        const std::string_view text = in_.string();
        v.first = static_cast<std::uint32_t>(call.bytes.size());
        v.size = static_cast<std::uint32_t>(text.size());
        call.bytes.append(text);
        break;
      }
      case kWString: {
        v.kind = ValueKind::WString;
        const std::uint64_t count = in_.count();
        v.first = static_cast<std::uint32_t>(call.units.size());
        v.size = static_cast<std::uint32_t>(count);
        for (std::uint64_t i = 0; i < count; ++i) {
          call.units.push_back(static_cast<std::uint32_t>(in_.uint()));
        }
        break;
      }
      case kEnum:
        v.kind = ValueKind::Enum;
        v.signature.enumeration = enum_signature();
        v.number.sint = version() >= 3 ? typed_sint() : v.signature.enumeration->values[0].second;
        break;
      case kBitmask:
        v.kind = ValueKind::Bitmask;
        v.signature.bitmask = bitmask_signature();
        v.number.uint = in_.uint();
        break;
      case kOpaque:
        v.kind = ValueKind::Pointer;
        v.number.uint = in_.uint();
        break;
      case kArray: {
        v.kind = ValueKind::Array;
        const std::uint64_t count = in_.count();
        v.size = static_cast<std::uint32_t>(count);
        v.first = reserve(call, count);
        for (std::uint32_t i = 0; i < v.size; ++i) {
          fill(v.first + i, depth + 1);
        }
        break;
      }
      case kStruct: {
        v.kind = ValueKind::Struct;
        v.signature.structure = struct_signature();
        const std::size_t members = v.signature.structure->member_names.size();
        if (members > in_.left()) {
          throw NeedMore{in_.position() + members, true, members};
        }
        v.size = static_cast<std::uint32_t>(members);
        v.first = reserve(call, members);
        for (std::uint32_t i = 0; i < v.size; ++i) {
          fill(v.first + i, depth + 1);
        }
        break;
      }
      case kRepr:
        v.kind = ValueKind::Repr;
        v.size = 2;
        v.first = reserve(call, 2);
        fill(v.first, depth + 1);
        fill(v.first + 1, depth + 1);
        break;
      default:
        corrupt(at, fmt::format("unknown value type 0x{:02x}", type));
    }
    call.values[index] = v;
  }

 public:
  Call* current_ = nullptr;

 private:
  Decoder& d_;
  Signatures& sigs_;
  ByteCursor in_;
};

Decoder::Decoder(StreamWindow& stream, Diagnostics& diagnostics, std::function<void()> at_end,
                 DecoderLimits limits)
    : stream_(stream),
      diagnostics_(diagnostics),
      at_end_(std::move(at_end)),
      limits_(limits),
      signatures_(std::make_unique<Signatures>()) {
  read_header();
}

// The stream has no more bytes: a damaged container says so now.
void Decoder::stream_ended() {
  ended_ = true;
  if (at_end_) {
    at_end_();
  }
}

Decoder::~Decoder() = default;

void Decoder::fail(std::uint64_t offset, const std::string& message) const {
  throw InputError(stream_.name(), offset, message);
}

void Decoder::read_header() {
  std::size_t wanted = 64;
  for (;;) {
    std::span<const std::uint8_t> bytes;
    try {
      bytes = stream_.peek(wanted);
    } catch (const InputError&) {
      throw;
    } catch (const std::runtime_error& error) {
      fail(stream_.offset(), error.what());
    }
    if (bytes.empty()) {
      stream_ended();
      fail(0, "empty trace (no header)");
    }
    EventParser parser(*this, bytes);
    try {
      TraceHeader header;
      parser.header(header);
      header_ = std::move(header);
      stream_.consume(parser.consumed());
      return;
    } catch (const NeedMore& more) {
      if (bytes.size() < wanted || more.wanted > limits_.max_event) {
        stream_ended();
        fail(0, "the trace ends inside its header");
      }
      wanted = std::max(more.wanted, bytes.size() * 2);
    } catch (const Corrupt& damage) {
      fail(damage.position, damage.message);
    }
  }
}

Call* Decoder::take_call() {
  if (spare_.empty()) {
    calls_.push_back(std::make_unique<Call>());
    return calls_.back().get();
  }
  Call* call = spare_.back();
  spare_.pop_back();
  return call;
}

void Decoder::recycle(Call* call) {
  call->clear();
  spare_.push_back(call);
}

void Decoder::adjust_flags(Call& call) const {
  // apitrace hides `glGetError() = GL_NO_ERROR` unless verbose.
  if (call.signature != nullptr && call.signature == signatures_->get_error && call.ret >= 0) {
    const Value& ret = call.value(call.ret);
    const bool zero =
        (ret.kind == ValueKind::Enum || ret.kind == ValueKind::SInt || ret.kind == ValueKind::UInt)
            ? ret.number.uint == 0
            : ret.kind == ValueKind::Null;
    if (zero) {
      call.flags |= kFlagVerbose;
    }
  }
}

const Call* Decoder::next() {
  if (yielded_ != nullptr) {
    recycle(yielded_);
    yielded_ = nullptr;
  }
  while (!ended_) {
    if (Call* call = read_event(); call != nullptr) {
      adjust_flags(*call);
      yielded_ = call;
      return call;
    }
  }
  yielded_ = next_incomplete();
  return yielded_;
}

Call* Decoder::next_incomplete() {
  if (in_flight_.empty()) {
    return nullptr;
  }
  Call* call = in_flight_.front();
  in_flight_.erase(in_flight_.begin());
  call->flags |= kFlagIncomplete;
  adjust_flags(*call);
  return call;
}

// Reads one event; returns the call it completes, if any. Sets ended_ at the end of the stream.
Call* Decoder::read_event() {
  std::size_t wanted = std::min(window_, limits_.max_event);
  for (;;) {
    const std::uint64_t start = stream_.offset();
    std::span<const std::uint8_t> bytes;
    try {
      bytes = stream_.peek(wanted);
    } catch (const InputError&) {
      throw;
    } catch (const std::runtime_error& error) {
      fail(start, error.what());
    }
    // An event may not reach past the limit, however much happens to be buffered.
    bytes = bytes.first(std::min(bytes.size(), limits_.max_event));
    if (bytes.empty()) {
      stream_ended();
      return nullptr;
    }
    EventParser parser(*this, bytes);
    Call* completed = nullptr;
    try {
      completed = parser.event();
      signatures_->commit();
      stream_.consume(parser.consumed());
      return completed;
    } catch (const NeedMore& more) {
      signatures_->roll_back();
      if (bytes.size() < wanted) {
        // The input ended inside this event.
        stream_ended();
        if (more.for_length) {
          fail(start + parser.consumed(),
               fmt::format("a length or count of {} is larger than the {} byte(s) left in the "
                           "stream (corrupt or truncated trace)",
                           more.length, bytes.size()));
        }
        diagnostics_.warning(stream_.name(), start,
                             "the trace ends in the middle of an event (cut short: the "
                             "program was killed or the file truncated); it is dropped");
        return nullptr;
      }
      if (more.wanted > limits_.max_event) {
        fail(start, fmt::format("an event longer than {} bytes (rtrace's limit; corrupt trace?)",
                                limits_.max_event));
      }
      wanted = std::max(more.wanted, std::min(bytes.size() * 2, limits_.max_event));
    } catch (const Corrupt& damage) {
      signatures_->roll_back();
      ended_ = true;
      fail(start + damage.position, damage.message);
    }
  }
}

}  // namespace rtrace::apitrace
