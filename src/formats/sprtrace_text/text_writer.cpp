#include "formats/sprtrace_text/text_writer.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats/sprtrace_text/comment_lines.h"
#include "formats/sprtrace_text/header_line.h"
#include "formats/sprtrace_text/record_lines.h"
#include "formats/sprtrace_text/repeated_fields.h"
#include "formats/sprtrace_text/resolved_frame.h"
#include "formats/sprtrace_text/text_escape.h"
#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace {
namespace {

using sprtrace_text::append_resolved_frame;
using sprtrace_text::has_control_character;
using sprtrace_text::kGroupPrefix;
using sprtrace_text::kLeakTypePrefix;
using sprtrace_text::kMaxDigits;
using sprtrace_text::kPidPrefix;
using sprtrace_text::kProcessPrefix;
using sprtrace_text::kReadFromTextKey;
using sprtrace_text::kTimestampKey;
using sprtrace_text::MillisecondStamp;
using sprtrace_text::neutral_call_keyword;
using sprtrace_text::printable;
using sprtrace_text::printable_header_value;
using sprtrace_text::write_decimal;
using sprtrace_text::write_hex;
using sprtrace_text::write_two_digits;

// The original post-processor always writes its own text format version, whatever the input said.
constexpr std::string_view kTextVersion = "2.0";
constexpr std::uint32_t kMillisecondsPerDay = 24 * 60 * 60 * 1000;
constexpr std::uint64_t kNanosecondsPerMillisecond = 1'000'000;
// The most an address line (`\t0x<address>\n`) takes.
constexpr std::size_t kAddressLineRoom = 4 + kMaxDigits;

// Formats into the tail of `buffer`: room for `max` characters is made first, and the string is
// cut back to what was written when the line goes out of scope. This avoids a capacity check per
// character or per number on the hot lines.
class TailWriter {
 public:
  TailWriter(std::string& buffer, std::size_t max) : buffer_(buffer) {
    const std::size_t start = buffer.size();
    buffer.resize(start + max);
    p_ = buffer.data() + start;
  }
  TailWriter(const TailWriter&) = delete;
  TailWriter& operator=(const TailWriter&) = delete;
  ~TailWriter() { buffer_.resize(static_cast<std::size_t>(p_ - buffer_.data())); }

  void put(char c) { *p_++ = c; }
  // A literal: a copy of known size, which the compiler turns into a store or two.
  template <std::size_t N>
  void put(const char (&literal)[N]) {
    std::memcpy(p_, literal, N - 1);
    p_ += N - 1;
  }
  void put(std::string_view text) {
    if (!text.empty()) {  // an empty view's data() may be null
      std::memcpy(p_, text.data(), text.size());
      p_ += text.size();
    }
  }
  // N characters at `text`: a copy of known size.
  template <std::size_t N>
  void put_fixed(const char* text) {
    std::memcpy(p_, text, N);
    p_ += N;
  }
  void hex(std::uint64_t value) { p_ = write_hex(p_, value); }
  void counted(sprtrace_text::CountingDecimal& counter, std::uint64_t value) {
    p_ = counter.write(p_, value);
  }
  void decimal(std::uint64_t value) { p_ = write_decimal(p_, value); }

 private:
  std::string& buffer_;
  char* p_;
};

// The start of `info` as the header prints it: `year.month.day HH:MM:SS`, local time.
std::string start_timestamp(const ProcessInfo& info) {
  const std::time_t seconds = static_cast<std::time_t>(info.start.seconds);
  std::tm tm{};
  if (localtime_r(&seconds, &tm) == nullptr) {
    return {};
  }
  std::string text = std::to_string(tm.tm_year + 1900) + '.' + std::to_string(tm.tm_mon + 1) + '.' +
                     std::to_string(tm.tm_mday) + ' ';
  char clock[8];
  char* p = write_two_digits(clock, static_cast<unsigned>(tm.tm_hour));
  *p++ = ':';
  p = write_two_digits(p, static_cast<unsigned>(tm.tm_min));
  *p++ = ':';
  p = write_two_digits(p, static_cast<unsigned>(tm.tm_sec));
  return text.append(clock, p);
}

std::string header_timestamp(const TraceHeader& header, const ProcessInfo& info) {
  if (const std::optional<std::string_view> text = header.metadata.get(kTimestampKey)) {
    return std::string(*text);
  }
  return start_timestamp(info);
}

std::string filter_text(const AppliedStages& filters) {
  std::string text;
  const auto add = [&](bool on, std::string_view name) {
    if (!on) {
      return;
    }
    if (!text.empty()) {
      text += '|';
    }
    text += name;
  };
  add(filters.leaks, "leaks");
  add(filters.compress, "compress");
  add(filters.resolve, "resolve");
  return text;
}

// The mask the text protocol shows for a resource type ordinal.
std::uint64_t resource_mask(std::uint32_t id) {
  return ResourceType::valid_id(id) ? std::uint64_t{1} << (id - 1) : 0;
}

}  // namespace

// Everything the writer knows between records. Records that arrive before the first call are
// kept in `Preamble` and printed in the original's order when the first call arrives; after that
// every record is printed as it arrives, so memory stays constant.
class TextWriter::Printer {
 public:
  Printer(OutputStream& out, TextWriterOptions options) : out_(out), options_(std::move(options)) {}

  void header(const TraceHeader& header) {
    if (!started_) {
      preamble_.header = header;
      // The original post-processor reads `##` lines of text input as comments: they come out
      // after the memory maps, where comments go. (The original resolver copies text input
      // line by line: PreambleOrder::AsRead.)
      read_from_text_ = header.metadata.get(kReadFromTextKey).has_value();
    }
  }
  // The first process is the header's; the others of a stream of several get a line of their
  // own (kProcessPrefix).
  void process(const ProcessInfo& info) {
    if (!started_ && !preamble_.process) {
      preamble_.process = info;
      header_pid_ = info.pid;
      current_pid_ = info.pid;
      return;
    }
    if (info.pid == header_pid_ || !other_pids_.insert(info.pid).second) {
      return;
    }
    if (started_) {
      print_process(info);
    } else {
      preamble_.processes.push_back(info);
    }
  }
  void module(const ModuleInfo& module) {
    if (started_) {
      print_module(module);
    } else if (keep_in_order(read_from_text_)) {
      with_buffer(preamble_.tail, [&] { print_module(module); });
    } else {
      preamble_.modules.push_back(module);
    }
  }
  void mapping(const Mapping& mapping) {
    if (started_) {
      print_mapping(mapping);
    } else if (keep_in_order(false)) {
      with_buffer(preamble_.tail, [&] { print_mapping(mapping); });
    } else {
      preamble_.mappings.push_back(mapping);
    }
  }
  void context(const ContextInfo& context) {
    if (started_) {
      print_context(context);
    } else if (keep_in_order(false)) {
      with_buffer(preamble_.tail, [&] { print_context(context); });
    } else {
      preamble_.contexts.push_back(context);
    }
  }
  void resource_type(const ResourceType& type) {
    remember_type(type);
    if (started_) {
      print_resource_type(type);
    } else if (keep_in_order(false)) {
      with_buffer(preamble_.tail, [&] { print_resource_type(type); });
    } else {
      preamble_.resource_types.push_back(type);
    }
  }
  void heap_info(const HeapInfo& info) {
    if (started_) {
      print_heap_info(info);
    } else if (keep_in_order(read_from_text_)) {
      with_buffer(preamble_.tail, [&] { print_heap_info(info); });
    } else {
      preamble_.heap = info;
    }
  }
  // After the calls, where the tracer wrote it; a stage holding the calls back (-l, -c) may pass
  // it on before them: then it follows the preamble.
  void trace_end(const TraceEnd& end) {
    if (started_) {
      print_trace_end(end);
    } else {
      with_buffer(preamble_.tail, [&] { print_trace_end(end); });
    }
  }
  // As the trace's end, which it comes just before.
  void leak_kinds(const LeakKinds& kinds) {
    if (started_) {
      print_leak_kinds(kinds);
    } else {
      with_buffer(preamble_.tail, [&] { print_leak_kinds(kinds); });
    }
  }
  void attachment(const Attachment& attachment) {
    if (started_) {
      print_attachment(attachment);
    } else if (keep_in_order(false)) {
      with_buffer(preamble_.tail, [&] { print_attachment(attachment); });
    } else {
      preamble_.attachments.push_back(attachment);
    }
  }
  void note(const Note& note) {
    if (started_) {
      print_note(note.text);
    } else {
      with_buffer(preamble_.tail, [&] { print_note(note.text); });
    }
  }
  void symbol(SymbolId id, const Symbol& symbol) {
    // Ids are small and dense (each producer counts from 1); a hostile id costs its own slot.
    if (id == kNoSymbol || id > kMaxSymbolId) {
      return;
    }
    if (id >= symbol_texts_.size()) {
      symbol_texts_.resize(id + 1);
    }
    // Formatted where it is kept; escaped (rarely) from a copy.
    std::string& text = symbol_texts_[id];
    text.assign(1, ' ');
    append_resolved_frame(text, symbol);
    if (has_control_character(std::string_view(text).substr(1))) [[unlikely]] {
      const std::string raw = text.substr(1);
      text.resize(1);
      text += printable(raw, scratch_[0]);
    }
    has_symbols_ = true;
  }

  void group(const CallGroup& group) {
    start();
    group_ = group;
    group_calls_left_ = group.call_count;
    if (group_calls_left_ == 0) {
      print_group_end({});
    }
  }

  void leak_summary(const LeakSummary& summary) {
    start();
    std::string& b = out_.buffer();
    b += kLeakTypePrefix;
    b += printable(summary.type, scratch_[0]);
    b += " (";
    b += printable(summary.description, scratch_[0]);
    b += "):\n# ";
    b += std::to_string(summary.blocks);
    b += " block(s) leaked with total size of ";
    b += std::to_string(summary.bytes);
    b += " bytes\n";
  }

  void call(const CallRecord& record) {
    start();
    note_block(record.call);
    switch_to_process(record.call.pid);
    const std::string_view function = printable(record.function, scratch_[0]);
    const std::string_view type = type_tag(record.call.resource_type);
    if (group_calls_left_ == 0 && record.arguments.empty() && !has_symbols_) {
      // The usual call: its line, its addresses and the blank line after them in one room.
      {
        TailWriter lines(out_.buffer(), call_line_room(function, type) +
                                            record.frames.size() * kAddressLineRoom + 1);
        print_call_line(lines, record.call, function, type);
        print_addresses(lines, record.frames);
        lines.put('\n');
      }
      out_.maybe_flush();
      return;
    }
    {
      TailWriter line(out_.buffer(), call_line_room(function, type));
      print_call_line(line, record.call, function, type);
    }
    print_arguments(record.arguments);
    if (group_calls_left_ > 0) {
      // A group's calls share one backtrace, printed once after the group's summary.
      if (--group_calls_left_ == 0) {
        print_group_end(record.frames);
      }
      out_.maybe_flush();
      return;
    }
    print_frames(record.frames);
    out_.buffer() += '\n';
    out_.maybe_flush();
  }

  void finish() {
    start();
    out_.flush();
  }

 private:
  static constexpr SymbolId kMaxSymbolId = 1U << 26;

  struct Preamble {
    TraceHeader header;
    std::optional<ProcessInfo> process;  // the first process: the header describes it
    std::vector<ProcessInfo> processes;  // the others
    std::vector<ModuleInfo> modules;
    std::vector<ContextInfo> contexts;
    std::vector<ResourceType> resource_types;
    std::vector<Mapping> mappings;
    std::optional<HeapInfo> heap;
    std::vector<Attachment> attachments;
    std::string tail;  // lines printed after all of the above, in the order they arrived
  };

  // Whether a preamble record goes to the tail in arrival order rather than to its place in
  // the original's order.
  bool keep_in_order(bool comment_like) const {
    return (options_.preamble == PreambleOrder::AsRead && read_from_text_) || comment_like;
  }

  // Runs `print` (which appends to out_.buffer()) with its output going to `target` instead.
  template <typename Print>
  void with_buffer(std::string& target, Print print) {
    std::string& b = out_.buffer();
    const std::size_t start = b.size();
    print();
    target.append(b, start, std::string::npos);
    b.resize(start);
  }

  void start() {
    if (started_) {
      return;
    }
    started_ = true;
    print_header(preamble_.header, preamble_.process.value_or(ProcessInfo{}));
    for (const ProcessInfo& process : preamble_.processes) {
      print_process(process);
    }
    if (preamble_.heap) {
      print_heap_info(*preamble_.heap);
    }
    for (const ModuleInfo& module : preamble_.modules) {
      print_module(module);
    }
    for (const ContextInfo& context : preamble_.contexts) {
      print_context(context);
    }
    for (const ResourceType& type : preamble_.resource_types) {
      print_resource_type(type);
    }
    for (const Mapping& mapping : preamble_.mappings) {
      print_mapping(mapping);
    }
    for (const Attachment& attachment : preamble_.attachments) {
      print_attachment(attachment);
    }
    out_.buffer() += preamble_.tail;
    preamble_ = Preamble{};
    out_.maybe_flush();
  }

  void print_header(const TraceHeader& header, const ProcessInfo& process) {
    std::string& b = out_.buffer();
    const auto field = [&](std::string_view key, std::string_view value) {
      b += key;
      b += '=';
      b += printable_header_value(value, scratch_[0]);
      b += ", ";
    };
    field("version", kTextVersion);
    field("arch", header.arch);
    field("timestamp", header_timestamp(header, process));
    field("process", process.name);
    field("pid", std::to_string(process.pid));
    const std::string filters = filter_text(header.applied);
    if (!filters.empty()) {
      field("filter", filters);
    }
    if (process.backtrace_depth) {
      field("backtrace depth", std::to_string(*process.backtrace_depth));
    }
    field("origin", header.origin.empty() ? options_.origin : header.origin);
    b += '\n';
    print_command_line(process);
  }

  // Right after the line that announces its process, where the reader looks for it.
  void print_command_line(const ProcessInfo& process) {
    if (process.command_line) {
      out_.buffer() += sprtrace_text::format_command_line_line(*process.command_line);
      out_.buffer() += '\n';
    }
  }

  void print_leak_kinds(const LeakKinds& kinds) {
    out_.buffer() += sprtrace_text::format_leak_kinds_lines(kinds);
    out_.buffer() += '\n';
  }
  void print_trace_end(const TraceEnd& end) {
    out_.buffer() += sprtrace_text::format_trace_end_line(end);
    out_.buffer() += '\n';
  }

  void print_process(const ProcessInfo& process) {
    std::string& b = out_.buffer();
    b += kProcessPrefix;
    b += "pid=";
    b += std::to_string(process.pid);
    b += ", process=";
    b += printable_header_value(process.name, scratch_[0]);
    b += ", timestamp=";
    b += start_timestamp(process);
    b += ", ";
    if (process.backtrace_depth) {
      b += "backtrace depth=";
      b += std::to_string(*process.backtrace_depth);
      b += ", ";
    }
    b += '\n';
    print_command_line(process);
  }

  // Calls and maps of a process other than the one of the records before them follow a
  // `## pid=<pid>` line. Pid 0 is the stream's only process: the header's.
  void switch_to_process(std::uint32_t pid) {
    if (pid == 0 || pid == current_pid_) {
      return;
    }
    current_pid_ = pid;
    std::string& b = out_.buffer();
    b += kPidPrefix;
    b += std::to_string(pid);
    b += '\n';
  }

  // The lowest and highest allocated block among the calls written, which the original
  // post-processor adds to heap information (the HINF packet does not carry them).
  void note_block(const Call& call) {
    if (call.kind == CallKind::Alloc) {
      lowest_block_ = std::min(lowest_block_, call.resource_id);
      highest_block_ = std::max(highest_block_, call.resource_id);
    }
  }

  void print_heap_info(HeapInfo h) {
    if (h.lowest_block == 0 && h.highest_block == 0 && highest_block_ != 0) {
      h.lowest_block = lowest_block_;
      h.highest_block = highest_block_;
    }
    std::string& b = out_.buffer();
    const auto address = [&](std::string_view label, Address value) {
      char digits[kMaxDigits];
      b += "##   ";
      b += label;
      b += " 0x";
      b.append(digits, write_hex(digits, value));
      b += '\n';
    };
    // The original prints these counters with %d: values of 2^31 and more come out negative.
    const auto counter = [&](std::string_view label, std::uint32_t value) {
      b += "##   ";
      b += label;
      b += ' ';
      b += std::to_string(static_cast<std::int32_t>(value));
      b += '\n';
    };
    b += "## heap status information:\n";
    address("heap bottom", h.heap_bottom);
    address("heap top", h.heap_top);
    address("lowest block", h.lowest_block);
    address("highest block", h.highest_block);
    counter("non-mapped space allocated from system", h.arena);
    counter("number of free chunks", h.ordblks);
    counter("number of fastbin blocks", h.smblks);
    counter("number of mapped regions", h.hblks);
    counter("space in mapped regions", h.hblkhd);
    counter("maximum total allocated space", h.usmblks);
    counter("space available in freed fastbin blocks", h.fsmblks);
    counter("total allocated space", h.uordblks);
    counter("total free space", h.fordblks);
    counter("top-most, releasable (via malloc_trim) space", h.keepcost);
  }

  void print_module(const ModuleInfo& m) {
    const std::string_view name = printable(m.name, scratch_[0]);
    TailWriter line(out_.buffer(), 64 + 3 * kMaxDigits + name.size());
    line.put("## tracing module: [");
    line.hex(m.id);
    line.put("] ");
    line.put(name);
    line.put(" (");
    line.decimal(m.version_major);
    line.put('.');
    line.decimal(m.version_minor);
    line.put(")\n");
  }

  void print_context(const ContextInfo& c) {
    const std::string_view name = printable(c.name, scratch_[0]);
    TailWriter line(out_.buffer(), 8 + kMaxDigits + name.size());
    line.put("@ ");
    line.hex(c.id);
    line.put(" : ");
    line.put(name);
    line.put('\n');
  }

  void print_resource_type(const ResourceType& t) {
    const std::string_view type = printable(t.type, scratch_[0]);
    const std::string_view description = printable(t.description, scratch_[1]);
    TailWriter line(out_.buffer(), 32 + kMaxDigits + type.size() + description.size());
    line.put('<');
    line.hex(resource_mask(t.id));
    line.put("> : ");
    line.put(type);
    line.put(" (");
    line.put(description);
    line.put(')');
    if (t.refcounted()) {
      line.put(" [refcount]");
    }
    line.put('\n');
  }

  void print_mapping(const Mapping& m) {
    switch_to_process(m.pid);
    const std::string_view path = printable(m.path, scratch_[0]);
    TailWriter line(out_.buffer(), 16 + 2 * kMaxDigits + path.size());
    line.put(": ");
    line.put(path);
    line.put(" => 0x");
    line.hex(m.from);
    line.put("-0x");
    line.hex(m.to);
    line.put('\n');
  }

  void print_attachment(const Attachment& a) {
    const std::string_view name = printable(a.name, scratch_[0]);
    const std::string_view path = printable(a.path, scratch_[1]);
    TailWriter line(out_.buffer(), 8 + name.size() + path.size());
    line.put("& ");
    line.put(name);
    line.put(" : ");
    line.put(path);
    line.put('\n');
  }

  void print_note(std::string_view text) {
    std::string& b = out_.buffer();
    b += printable(text, scratch_[0]);
    b += '\n';
  }

  void remember_type(const ResourceType& type) {
    if (type.id >= type_names_.size()) {
      // Ids are small ordinals; a hostile id only costs its own slot.
      if (type.id > 1024) {
        return;
      }
      type_names_.resize(type.id + 1);
      type_known_.resize(type.id + 1, false);
    }
    if (!type_known_[type.id]) {
      type_known_[type.id] = true;
      ++type_count_;
    }
    // Escaped once here rather than on every call line that shows it.
    type_names_[type.id] = printable(type.type, scratch_[0]);
  }

  // The `<type>` tag shows only when the trace has more than one resource type; printable.
  std::string_view type_tag(std::uint32_t id) const {
    if (type_count_ < 2 || id >= type_names_.size()) {
      return {};
    }
    return type_names_[id];
  }

  // The most a call line of this printable function name and type tag takes.
  static std::size_t call_line_room(std::string_view function, std::string_view type) {
    return 48 + 4 * kMaxDigits + function.size() + type.size();
  }

  // The call's line; `function` and `type` printable.
  void print_call_line(TailWriter& line, const Call& call, std::string_view function,
                       std::string_view type) {
    line.counted(call_index_, call.index);
    line.put(". ");
    if (call.context != 0) {
      line.put('@');
      line.hex(call.context);
      line.put(' ');
    }
    // The protocol's clock is in whole milliseconds; a timestamp under 1 ms shows as none.
    const std::uint64_t ms = call.timestamp_ns / kNanosecondsPerMillisecond;
    if (ms != 0) {
      line.put_fixed<MillisecondStamp::kLength>(
          timestamp_.text(static_cast<std::uint32_t>(ms % kMillisecondsPerDay)));
    }
    line.put(function);
    if (!type.empty()) {
      line.put('<');
      line.put(type);
      line.put('>');
    }
    switch (call.kind) {
      case CallKind::Alloc:
        line.put('(');
        line.decimal(call.size);
        line.put(") = 0x");
        line.hex(call.resource_id);
        break;
      case CallKind::Free:
        line.put("(0x");
        line.hex(call.resource_id);
        line.put(')');
        break;
      case CallKind::Other:
      case CallKind::Enter:
      case CallKind::Exit:
        print_neutral_operand(line, call);
        break;
    }
    line.put('\n');
  }

  // rtrace's form for a call that neither allocates nor releases (see record_lines.h):
  // `({kind})`, or `({kind} size) = 0xid` when the call has a size or an id.
  static void print_neutral_operand(TailWriter& line, const Call& call) {
    line.put("({");
    line.put(neutral_call_keyword(call.kind));
    line.put('}');
    if (call.size == 0 && call.resource_id == 0) {
      line.put(')');
      return;
    }
    line.put(' ');
    line.decimal(call.size);
    line.put(") = 0x");
    line.hex(call.resource_id);
  }

  void print_arguments(std::span<const Argument> arguments) {
    for (const Argument& a : arguments) {
      const std::string_view name = printable(a.name, scratch_[0]);
      const std::string_view value = printable(a.value, scratch_[1]);
      TailWriter line(out_.buffer(), 8 + name.size() + value.size());
      line.put("\t$");
      line.put(name);
      line.put(" = ");
      line.put(value);
      line.put('\n');
    }
  }

  void print_group_end(std::span<const Frame> frames) {
    std::string& b = out_.buffer();
    b += kGroupPrefix;
    b += std::to_string(group_.block_count);
    b += " block(s) with total size ";
    b += std::to_string(group_.total_size);
    b += '\n';
    print_frames(frames);
    b += '\n';
    out_.maybe_flush();
  }

  // `\t0x<address>[ <symbol>]`. A frame known only by its symbol shows address 0.
  void print_frames(std::span<const Frame> frames) {
    if (!has_symbols_) {
      TailWriter lines(out_.buffer(), frames.size() * kAddressLineRoom);
      print_addresses(lines, frames);
      return;
    }
    for (const Frame& frame : frames) {
      const std::string_view name = frame.symbol < symbol_texts_.size()
                                        ? std::string_view(symbol_texts_[frame.symbol])
                                        : std::string_view();
      TailWriter line(out_.buffer(), 4 + kMaxDigits + name.size());
      line.put("\t0x");
      line.hex(frame.address);
      line.put(name);
      line.put('\n');
    }
  }

  // `\t0x<address>` lines, for a trace without symbols: kAddressLineRoom each.
  static void print_addresses(TailWriter& lines, std::span<const Frame> frames) {
    for (const Frame& frame : frames) {
      lines.put("\t0x");
      lines.hex(frame.address);
      lines.put('\n');
    }
  }

  OutputStream& out_;
  TextWriterOptions options_;
  bool started_ = false;
  Address lowest_block_ = ~Address{0};
  Address highest_block_ = 0;
  Preamble preamble_;
  std::vector<std::string> type_names_;  // by resource type id, printable
  std::vector<bool> type_known_;
  std::size_t type_count_ = 0;
  bool read_from_text_ = false;
  CallGroup group_;
  std::uint64_t group_calls_left_ = 0;
  bool has_symbols_ = false;
  std::uint32_t header_pid_ = 0;
  std::uint32_t current_pid_ = 0;                 // the process of the calls and maps printed last
  std::unordered_set<std::uint32_t> other_pids_;  // the processes announced after the header's
  std::vector<std::string> symbol_texts_;         // " fn() from /module", by SymbolId; empty: none
  std::string scratch_[2];                        // escaped strings of the line being printed
  sprtrace_text::CountingDecimal call_index_;     // the last call line's index
  sprtrace_text::MillisecondStamp timestamp_;     // the last call line's timestamp
};

TextWriter::TextWriter(OutputStream& out, TextWriterOptions options)
    : printer_(std::make_unique<Printer>(out, std::move(options))) {}

TextWriter::~TextWriter() = default;

void TextWriter::header(const TraceHeader& header) {
  printer_->header(header);
}
void TextWriter::process(const ProcessInfo& info) {
  printer_->process(info);
}
void TextWriter::module(const ModuleInfo& module) {
  printer_->module(module);
}
void TextWriter::mapping(const Mapping& mapping) {
  printer_->mapping(mapping);
}
void TextWriter::context(const ContextInfo& context) {
  printer_->context(context);
}
void TextWriter::resource_type(const ResourceType& type) {
  printer_->resource_type(type);
}
void TextWriter::symbol(SymbolId id, const Symbol& symbol) {
  printer_->symbol(id, symbol);
}
void TextWriter::call(const CallRecord& record) {
  printer_->call(record);
}
void TextWriter::group(const CallGroup& group) {
  printer_->group(group);
}
void TextWriter::leak_summary(const LeakSummary& summary) {
  printer_->leak_summary(summary);
}
void TextWriter::heap_info(const HeapInfo& info) {
  printer_->heap_info(info);
}

void TextWriter::trace_end(const TraceEnd& end) {
  printer_->trace_end(end);
}
void TextWriter::leak_kinds(const LeakKinds& kinds) {
  printer_->leak_kinds(kinds);
}
void TextWriter::attachment(const Attachment& attachment) {
  printer_->attachment(attachment);
}
void TextWriter::note(const Note& note) {
  printer_->note(note);
}
void TextWriter::finish() {
  printer_->finish();
}

}  // namespace rtrace
