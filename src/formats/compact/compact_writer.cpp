#include "formats/compact/compact_writer.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/compact_encoder.h"

namespace rtrace {
namespace {

using compact::Text;

// Each table forgets everything (a RESET record) at this many entries, which keeps a reader's
// memory within what docs/format.md promises.
constexpr std::size_t kMaxTableEntries = std::size_t{1} << 20;
constexpr std::size_t kMaxTableFrames = std::size_t{1} << 24;
// The resource ids remembered for references (compact_encoder.h); forgotten all at once when
// full, which only makes the next calls refer to their resources by value.
constexpr std::size_t kMaxResources = std::size_t{1} << 22;

Text text(std::string_view s) {
  return {s.data(), s.size()};
}

// The encoder's output: the OutputStream's buffer, flushed between records.
class BufferOut {
 public:
  explicit BufferOut(OutputStream& out) : out_(out) {}

  char* reserve(std::size_t bytes) {
    std::string& buffer = out_.buffer();
    at_ = buffer.size();
    buffer.resize(at_ + bytes);
    return buffer.data() + at_;
  }
  void commit(std::size_t bytes) {
    out_.buffer().resize(at_ + bytes);
    out_.maybe_flush();
  }

 private:
  OutputStream& out_;
  std::size_t at_ = 0;
};

// Stacks keyed by their frames' bytes, function names by themselves.
class HashTables {
 public:
  std::uint64_t stack_id(const std::uint64_t* frames, std::uint32_t count, bool& fresh) {
    std::string key(reinterpret_cast<const char*>(frames), std::size_t{count} * sizeof *frames);
    const std::uint64_t id = find(stacks_, std::move(key), count, fresh);
    if (fresh) {
      stack_spans_.push_back({stack_pool_.size(), count});
      stack_pool_.insert(stack_pool_.end(), frames, frames + count);
    }
    return id;
  }
  std::uint64_t stack_with_outer(std::uint64_t key) const {
    const auto found = outers_.find(key);
    return found != outers_.end() ? found->second : 0;
  }
  void add_outer(std::uint64_t key, std::uint64_t stack) { outers_.emplace(key, stack); }
  const std::uint64_t* stack_frames(std::uint64_t stack, std::uint32_t& count) const {
    if (stack == 0 || stack > stack_spans_.size()) {
      return nullptr;
    }
    const StackSpan& span = stack_spans_[stack - 1];
    count = span.count;
    return stack_pool_.data() + span.first;
  }
  std::uint64_t function_id(const char* name, std::size_t length, bool& fresh) {
    return find(functions_, std::string(name, length), 0, fresh);
  }
  std::uint64_t* resource_slot(std::uint64_t resource_id) {
    if (resources_.size() == kMaxResources && resources_.find(resource_id) == resources_.end()) {
      resources_.clear();
    }
    return &resources_[resource_id];
  }
  void clear(compact::Table table) {
    if (table == compact::Table::Stacks) {
      stacks_.clear();
      stack_frames_ = 0;
      stack_spans_.clear();
      stack_pool_.clear();
      outers_.clear();
    } else {
      functions_.clear();
    }
  }

 private:
  std::uint64_t find(std::unordered_map<std::string, std::uint64_t>& table, std::string key,
                     std::uint32_t frames, bool& fresh) {
    if (const auto found = table.find(key); found != table.end()) {
      return found->second;
    }
    if (table.size() == kMaxTableEntries || stack_frames_ + frames > kMaxTableFrames) {
      return 0;
    }
    stack_frames_ += frames;
    fresh = true;
    const std::uint64_t id = table.size() + 1;
    table.emplace(std::move(key), id);
    return id;
  }

  std::unordered_map<std::string, std::uint64_t> stacks_;
  // The frames of the stacks by id - 1, and the stacks' outer frames by their keys
  // (compact_encoder.h).
  struct StackSpan {
    std::size_t first;
    std::uint32_t count;
  };
  std::vector<StackSpan> stack_spans_;
  std::vector<std::uint64_t> stack_pool_;
  std::unordered_map<std::uint64_t, std::uint64_t> outers_;
  std::unordered_map<std::string, std::uint64_t> functions_;
  std::unordered_map<std::uint64_t, std::uint64_t> resources_;
  std::size_t stack_frames_ = 0;
};

}  // namespace

struct CompactWriter::State {
  explicit State(OutputStream& out) : buffer(out), encoder(buffer, tables) {}

  BufferOut buffer;
  HashTables tables;
  compact::CompactEncoder<BufferOut, HashTables> encoder;
  bool has_header = false;
  bool ended = false;  // an END record is written
  std::vector<std::uint64_t> frames;
  std::vector<Text> arguments;
  // THREAD slots by thread id: thread 0 (unknown: a format without thread ids) is slot 0's, as
  // every call is before the first THREAD record; the others take the next free slot, and once
  // there is none, share one by their id.
  std::unordered_map<std::uint64_t, std::uint32_t> slots{{0, 0}};

  std::uint32_t slot_of(std::uint64_t thread) {
    const auto found = slots.find(thread);
    if (found != slots.end()) {
      return found->second;
    }
    if (slots.size() < compact::kThreadSlots) {
      const auto slot = static_cast<std::uint32_t>(slots.size());
      slots.emplace(thread, slot);
      return slot;
    }
    return static_cast<std::uint32_t>(thread % compact::kThreadSlots);
  }
};

CompactWriter::CompactWriter(OutputStream& out) : out_(out), state_(std::make_unique<State>(out)) {}

CompactWriter::~CompactWriter() = default;

void CompactWriter::header(const TraceHeader& header) {
  if (state_->has_header) {
    return;  // concatenated inputs: one trace
  }
  state_->has_header = true;
  state_->encoder.file_header();
  const auto pointer_size = header.metadata.get_or("sprtrace.pointer_size", "8");
  state_->encoder.trace({
      .arch = text(header.arch),
      .pointer_size = static_cast<std::uint8_t>(pointer_size == "4" ? 4 : 8),
      .big_endian = header.metadata.get_or("sprtrace.byte_order", "little") == "big",
      .time_unit_ns = 1,
      .origin = text(header.origin),
      .applied = (header.applied.leaks ? compact::kAppliedLeaks : 0) |
                 (header.applied.compress ? compact::kAppliedCompress : 0) |
                 (header.applied.resolve ? compact::kAppliedResolve : 0),
  });
}

// A stream whose reader gave no header still starts with one.
void CompactWriter::ensure_header() {
  if (!state_->has_header) {
    header(TraceHeader{});
  }
}

void CompactWriter::process(const ProcessInfo& info) {
  ensure_header();
  std::vector<compact::Text> arguments;
  compact::CommandLineFields command_line;
  if (info.command_line) {
    for (const std::string& argument : info.command_line->arguments) {
      arguments.push_back(text(argument));
    }
    command_line = {.arguments = arguments.data(),
                    .count = static_cast<std::uint32_t>(arguments.size()),
                    .cut = info.command_line->cut};
  }
  state_->encoder.process(info.pid, static_cast<std::uint64_t>(info.start.seconds),
                          info.start.microseconds,
                          info.backtrace_depth ? std::uint64_t{*info.backtrace_depth} + 1 : 0,
                          text(info.name), info.command_line ? &command_line : nullptr);
}

// The record keeps the reason, the signal, the sizes and the wall clock; its timestamp is in
// the trace's own clock (left at 0: a converted trace has none) and the process is the last
// PROCESS record's.
void CompactWriter::trace_end(const TraceEnd& end) {
  ensure_header();
  state_->encoder.end({.reason = static_cast<compact::EndReason>(end.reason),
                       .signal = end.signal,
                       .peak_rss = end.peak_rss_bytes,
                       .end_rss = end.rss_bytes,
                       .timestamp = 0,
                       .wall_seconds = end.time.seconds,
                       .wall_microseconds = end.time.microseconds});
  state_->ended = true;
}

// In records of at most kMaxLeakKindEntries blocks; one without blocks still says the check was
// made.
void CompactWriter::leak_kinds(const LeakKinds& kinds) {
  ensure_header();
  std::vector<compact::LeakKindEntry> entries;
  for (std::size_t at = 0; at < kinds.blocks.size() || at == 0;
       at += compact::kMaxLeakKindEntries) {
    entries.clear();
    for (std::size_t i = at; i < kinds.blocks.size() && i < at + compact::kMaxLeakKindEntries;
         ++i) {
      entries.push_back(
          {kinds.blocks[i].resource_id, static_cast<std::uint8_t>(kinds.blocks[i].kind)});
    }
    state_->encoder.leak_kinds(kinds.pid, entries.data(),
                               static_cast<std::uint32_t>(entries.size()));
    if (kinds.blocks.empty()) {
      break;
    }
  }
}

void CompactWriter::output_settings(const OutputSettings& settings) {
  ensure_header();
  state_->encoder.output_settings(text(settings.path), text(settings.options));
}

void CompactWriter::module(const ModuleInfo& module) {
  ensure_header();
  state_->encoder.module(module.id, module.version_major, module.version_minor, text(module.name));
}

void CompactWriter::mapping(const Mapping& mapping) {
  ensure_header();
  state_->encoder.mapping(mapping.from, mapping.to, text(mapping.path));
}

void CompactWriter::context(const ContextInfo& context) {
  ensure_header();
  state_->encoder.context(context.id, text(context.name));
}

void CompactWriter::resource_type(const ResourceType& type) {
  ensure_header();
  state_->encoder.resource(type.id, type.flags, text(type.type), text(type.description));
}

void CompactWriter::call(const CallRecord& record) {
  ensure_header();
  State& s = *state_;
  s.frames.clear();
  for (const Frame& frame : record.frames) {
    s.frames.push_back(frame.address);
  }
  s.arguments.clear();
  for (const Argument& argument : record.arguments) {
    s.arguments.push_back(text(argument.name));
    s.arguments.push_back(text(argument.value));
  }
  const Call& c = record.call;
  s.encoder.thread(s.slot_of(c.thread), c.thread);
  s.encoder.call({
      .kind = static_cast<std::uint8_t>(c.kind),
      .function = text(record.function),
      .resource_type = c.resource_type,
      .context = c.context,
      .timestamp = c.timestamp_ns,
      .resource_id = c.resource_id,
      .size = c.size,
      .frames = s.frames.data(),
      .frame_count = static_cast<std::uint32_t>(s.frames.size()),
      .arguments = s.arguments.data(),
      .argument_count = static_cast<std::uint32_t>(record.arguments.size()),
  });
}

void CompactWriter::heap_info(const HeapInfo& info) {
  ensure_header();
  const std::uint64_t fields[] = {
      info.heap_bottom, info.heap_top, info.lowest_block, info.highest_block, info.arena,
      info.ordblks,     info.smblks,   info.hblks,        info.hblkhd,        info.usmblks,
      info.fsmblks,     info.uordblks, info.fordblks,     info.keepcost};
  state_->encoder.heap_info(fields);
}

void CompactWriter::attachment(const Attachment& attachment) {
  ensure_header();
  state_->encoder.attachment(text(attachment.name), text(attachment.path));
}

void CompactWriter::finish() {
  ensure_header();
  if (!state_->ended) {
    state_->encoder.end({});  // "unknown": the trace it came from said nothing of its end
  }
  out_.flush();
}

}  // namespace rtrace
