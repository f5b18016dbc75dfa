#include "formats/sprtrace_text/text_reader.h"

#include <fmt/format.h>

#include <bit>
#include <optional>
#include <unordered_map>
#include <vector>

#include "formats/declared_once.h"
#include "formats/sprtrace_text/comment_lines.h"
#include "formats/sprtrace_text/header_line.h"
#include "formats/sprtrace_text/record_lines.h"
#include "formats/sprtrace_text/resolved_frame.h"
#include "formats/sprtrace_text/text_characters.h"
#include "formats/sprtrace_text/text_numbers.h"

namespace rtrace {
namespace {

using namespace sprtrace_text;

// Reads the text protocol line by line. A record is one or more call lines (several when the
// file is compressed: a group, with its `# allocation summary`), their argument lines, and the
// backtrace they share; it ends with an empty line (or, leniently, with the next line that is not
// part of it). The record's text is copied into buffers that are reused from record to record,
// so steady-state reading allocates nothing.
//
// Everything the file holds becomes a record, in file order: groups stay groups (the process
// command's expand stage puts calls back in index order), `##` lines become module and heap
// records, `# Resource` lines leak summaries; other comment lines become notes.
class TextReader {
 public:
  TextReader(InputStream& input, TraceSink& sink, Diagnostics& diagnostics)
      : input_(input), sink_(sink), diagnostics_(diagnostics) {}

  void run() {
    try {
      read_header();
      while (const std::optional<std::string_view> line = next_line()) {
        if (!line_complete_) {
          diagnostics_.warning(input_.name(), input_.line_number(),
                               "last line cut off by the end of the file");
          drop_cut_record();
          break;
        }
        if (!handle(*line)) {
          break;
        }
      }
      if (pending()) {
        drop_cut_record();
      }
    } catch (const InputError&) {
      deliver_process();
      flush_heap_lines();
      sink_.finish();
      throw;
    }
    deliver_process();
    flush_heap_lines();
    sink_.finish();
  }

 private:
  struct PendingCall {
    Call call;
    std::size_t function_begin = 0;
    std::size_t function_size = 0;
    std::size_t arguments_begin = 0;  // index into argument_texts_ (and arguments_)
    std::size_t argument_count = 0;
  };
  // Where an argument's or a resolved frame's text sits in text_.
  struct TextRange {
    std::size_t begin = 0;
    std::size_t size = 0;
  };
  struct ArgumentText {
    TextRange name;
    TextRange value;
  };

  [[noreturn]] void fail(std::string_view message) const {
    throw InputError(input_.name(), input_.line_number(), message);
  }

  std::optional<std::string_view> next_line() {
    const std::uint64_t before = input_.offset();
    std::optional<std::string_view> line = input_.read_line();
    if (!line) {
      return line;
    }
    line_complete_ = input_.offset() - before > line->size();
    if (line->ends_with('\r')) {
      line->remove_suffix(1);
    }
    check_characters(*line);
    return line;
  }

  // A text trace holds printable text and tabs only; anything else means the input is binary or
  // damaged.
  void check_characters(std::string_view line) const {
    if (!has_control_character(line)) [[likely]] {
      return;
    }
    fail(line.find('\0') != std::string_view::npos
             ? "NUL byte in a text trace (binary data?)"
             : "control character in a text trace (binary data?)");
  }

  void read_header() {
    const std::optional<std::string_view> line = next_line();
    if (!line) {
      throw InputError(input_.name(), 1, "empty input: no sp-rtrace text header");
    }
    if (!is_header_line(*line)) {
      if (classify_call_line(*line)) {
        fail("call record before the header line");
      }
      fail("not an sp-rtrace text trace: the first line is not a 'version=...' header");
    }
    HeaderFields header;
    if (const std::string_view error = parse_header_line(*line, header); !error.empty()) {
      fail(error);
    }
    pid_ = header.process.pid;
    sink_.header(header.header);
    held_process_ = std::move(header.process);
  }

  // The header of the next trace of a concatenation (`rtrace process` writes a stream of several
  // processes as one trace per process, one after the other): its process, whose calls follow.
  void next_trace(std::string_view line) {
    deliver_process();
    HeaderFields header;
    if (const std::string_view error = parse_header_line(line, header); !error.empty()) {
      fail(error);
    }
    pid_ = header.process.pid;
    held_process_ = std::move(header.process);
  }

  // A process is passed on at the line after the one that announced it, which may be its
  // `## command line:`.
  void deliver_process() {
    if (held_process_) {
      sink_.process(*held_process_);
      held_process_.reset();
    }
  }

  // Returns false when reading must stop.
  bool handle(std::string_view line) {
    // Most lines of a trace are the backtrace lines of the record being read: they take the
    // shortest way. (While a record is pending no process is held and no heap block is open:
    // both start only after finish_pending(), and end at the line after.)
    if (pending() && line.starts_with('\t')) [[likely]] {
      add_record_line(line);
      return true;
    }
    // Then the call lines and the blank lines that end records, when nothing else is going on.
    if (!held_process_ && heap_field_ == kNoHeapBlock) {
      if (line.empty() && pending()) {
        count_held_line(line);
        deliver();
        return true;
      }
      if (classify_call_line(line)) {  // digits and a dot: none of the cases below
        count_held_line(line);
        add_call_line(line);
        return true;
      }
    }
    return handle_other(line);
  }

  [[gnu::noinline]] bool handle_other(std::string_view line) {
    if (held_process_) {
      CommandLine command_line;
      if (line.starts_with("## command line") && parse_command_line_line(line, command_line)) {
        held_process_->command_line = std::move(command_line);
        deliver_process();
        return true;
      }
      deliver_process();
    }
    // Record lines are not held (handle() took them); `# ` lines are dropped (but leak
    // summaries, counted there); a call line resets the count.
    if (!line.starts_with("# ")) {
      count_held_line(line);
    }
    if (heap_field_ != kNoHeapBlock && continue_heap_block(line)) {
      return true;
    }
    if (line.empty()) {
      if (pending()) {
        deliver();
      } else {
        sink_.note({line});
      }
      return true;
    }
    switch (line.front()) {
      case '\t':
        break;  // not a record's line: handle() took those
      case '#':
        if (line.starts_with("# ")) {
          summary_line(line);
          return true;
        }
        break;
      case 'v':
        if (is_header_line(line)) {
          finish_pending();
          next_trace(line);
          return true;
        }
        break;
      default:
        if (classify_call_line(line)) {
          add_call_line(line);
          return true;
        }
        break;
    }
    finish_pending();
    handle_registry_or_comment(line);
    return true;
  }

  // `# ` lines: the summaries of -c and -l. Other temporary comments are dropped, as the protocol
  // says.
  void summary_line(std::string_view line) {
    if (pending()) {
      if (parse_group_summary(line, group_)) {
        in_group_ = true;
      }
      return;
    }
    if (parse_leak_type_line(line, leak_)) {
      leak_type_seen_ = true;
      return;
    }
    if (leak_type_seen_ && parse_leak_total_line(line, leak_)) {
      count_held_line(line);  // -c holds them until the end
      leak_.resource_type = type_id(leak_.type).value_or(0);
      sink_.leak_summary(leak_);
    }
    leak_type_seen_ = false;
  }

  // `## heap status information:` and the field lines after it. A block that breaks off is
  // passed on as the notes it was.
  void start_heap_block(std::string_view line) {
    heap_field_ = 0;
    heap_ = HeapInfo{};
    heap_lines_.assign(line);
    heap_lines_ += '\n';
  }

  bool continue_heap_block(std::string_view line) {
    if (!parse_heap_field(line, heap_field_, heap_)) {
      flush_heap_lines();
      return false;
    }
    heap_lines_ += line;
    heap_lines_ += '\n';
    if (++heap_field_ == kHeapFieldCount) {
      heap_field_ = kNoHeapBlock;
      heap_lines_.clear();
      sink_.heap_info(heap_);
    }
    return true;
  }

  void flush_heap_lines() {
    heap_field_ = kNoHeapBlock;
    std::string_view lines = heap_lines_;
    while (!lines.empty()) {
      const std::size_t end = lines.find('\n');
      sink_.note({lines.substr(0, end)});
      lines.remove_prefix(end + 1);
    }
    heap_lines_.clear();
  }

  // The leak check's lines: each passes on as a record of its own (the kinds add up).
  bool leak_kind_line(std::string_view line) {
    LeakKinds kinds;
    BlockKind block;
    if (line.starts_with(kLeakKindsPrefix) && parse_leak_kinds_line(line, kinds.pid)) {
      sink_.leak_kinds(kinds);
      return true;
    }
    if (line.starts_with(kLeakKindPrefix) && parse_leak_kind_line(line, kinds.pid, block)) {
      kinds.blocks = std::span<const BlockKind>(&block, 1);
      sink_.leak_kinds(kinds);
      return true;
    }
    return false;
  }

  void handle_registry_or_comment(std::string_view line) {
    if (line.starts_with(kModulePrefix) && parse_module_line(line, module_)) {
      if (declared_.first(module_)) {
        sink_.module(module_);
      }
      return;
    }
    if (line.starts_with("## ") && process_line(line)) {
      return;
    }
    if (line.starts_with(kTraceEndPrefix) && parse_trace_end_line(line, trace_end_)) {
      sink_.trace_end(trace_end_);
      return;
    }
    if (leak_kind_line(line)) {
      return;
    }
    if (line == kHeapTitle) {
      start_heap_block(line);
      return;
    }
    std::string_view error;
    switch (classify_registry_line(line)) {
      case RegistryLine::Context:
        error = parse_context_line(line, context_);
        if (error.empty() && declared_.first(context_)) {
          sink_.context(context_);
        }
        break;
      case RegistryLine::ResourceType:
        error = parse_resource_line(line, resource_type_);
        if (error.empty()) {
          remember_type(resource_type_);
          if (declared_.first(resource_type_)) {
            sink_.resource_type(resource_type_);
          }
        }
        break;
      case RegistryLine::Mapping:
        error = parse_mapping_line(line, mapping_);
        if (error.empty()) {
          mapping_.pid = pid_;
          sink_.mapping(mapping_);
        }
        break;
      case RegistryLine::Attachment:
        parse_attachment_line(line, attachment_);
        sink_.attachment(attachment_);
        break;
      case RegistryLine::None:
        sink_.note({line});
        break;
    }
    if (!error.empty()) {
      fail(error);
    }
  }

  // rtrace's lines for a stream of several processes (comment_lines.h); false for other lines.
  bool process_line(std::string_view line) {
    if (line.starts_with(kPidPrefix)) {
      if (!parse_decimal(line.substr(kPidPrefix.size()), pid_)) {
        fail("bad pid in a '## pid=' line");
      }
      return true;
    }
    if (line.starts_with(kProcessPrefix)) {
      HeaderFields fields;
      if (const std::string_view error =
              parse_header_line(line.substr(kProcessPrefix.size()), fields);
          !error.empty()) {
        fail(std::string(error) + " ('## process:' line)");
      }
      held_process_ = std::move(fields.process);
      return true;
    }
    return false;
  }

  void remember_type(const ResourceType& type) {
    const auto known = type_ids_.find(std::string_view(type.type));
    if (known != type_ids_.end()) {
      known->second = type.id;
    } else {
      type_ids_.emplace(type.type, type.id);
    }
  }

  std::optional<std::uint32_t> type_id(std::string_view name) const {
    const auto known = type_ids_.find(name);
    if (known == type_ids_.end()) {
      return std::nullopt;
    }
    return known->second;
  }

  bool pending() const { return !calls_.empty(); }

  void finish_pending() {
    if (pending()) {
      deliver();
    }
  }

  void drop_cut_record() {
    if (pending()) {
      diagnostics_.warning(input_.name(), record_line_,
                           "the record starting here is cut off by the end of the file");
    }
    clear_pending();
  }

  std::size_t store_text(std::string_view text) {
    const std::size_t begin = text_.size();
    text_ += text;
    return begin;
  }

  std::string_view stored(TextRange range) const {
    return std::string_view(text_).substr(range.begin, range.size);
  }

  // Lines that are not part of a call record (comments, registries, blank lines) are kept in
  // memory by what comes after the reader until the next call: the text writer before the first
  // call (to print them in the original's order), -c after the last (they print after the
  // groups), the per-process split (registries, for processes met later). A run of them is
  // bounded, so that a small compressed input cannot fill the memory.
  void count_held_line(std::string_view line) {
    ++held_lines_;
    held_bytes_ += line.size();
    if (held_lines_ > kMaxHeldLines || held_bytes_ > kMaxHeldBytes) {
      fail(
          fmt::format("more than {} comment or registry lines (or {} MiB) in a row without a "
                      "call record: rtrace keeps such lines in memory until the next call, so "
                      "it stops here",
                      kMaxHeldLines, kMaxHeldBytes >> 20));
    }
  }

  void add_call_line(std::string_view line) {
    held_lines_ = 0;
    held_bytes_ = 0;
    if (in_backtrace_) {
      deliver();
    }
    CallLine parsed;
    if (const std::string_view error = parse_call_line(line, parsed); !error.empty()) {
      fail(error);
    }
    if (!parsed.type_tag.empty()) {
      const std::optional<std::uint32_t> id = resolve_type_tag(parsed.type_tag);
      if (!id) {
        fail("unknown resource type <" + std::string(parsed.type_tag) + "> in a call record");
      }
      parsed.call.resource_type = *id;
    } else if (type_ids_.size() == 1) {
      // The tag is left out when the trace has a single type: the call is of that type.
      parsed.call.resource_type = type_ids_.begin()->second;
    }
    if (calls_.empty()) {
      record_line_ = input_.line_number();
    }
    PendingCall& call = calls_.emplace_back();
    call.call = parsed.call;
    call.call.pid = pid_;
    call.function_size = parsed.function.size();
    call.function_begin = store_text(parsed.function);
    call.arguments_begin = argument_texts_.size();
  }

  std::optional<std::uint32_t> resolve_type_tag(std::string_view tag) const {
    if (const std::optional<std::uint32_t> id = type_id(tag)) {
      return id;
    }
    // The protocol document shows the tag as the type's mask; accept that too.
    std::uint64_t mask = 0;
    if (parse_hex(tag, mask) && mask != 0) {
      return static_cast<std::uint32_t>(std::countr_zero(mask) + 1);
    }
    return std::nullopt;
  }

  void add_record_line(std::string_view line) {
    if (line.starts_with("\t$")) {
      std::string_view name;
      std::string_view value;
      if (!parse_argument_line(line, name, value)) {
        fail("malformed argument line (expected '\\t$name = value')");
      }
      ArgumentText& argument = argument_texts_.emplace_back();
      argument.name = {store_text(name), name.size()};
      argument.value = {store_text(value), value.size()};
      ++calls_.back().argument_count;
      return;
    }
    Address address = 0;
    std::string_view resolved;
    if (!parse_frame_line(line, address, resolved)) {
      fail("malformed backtrace line (expected '\\t0x<address>[ <resolved name>]')");
    }
    in_backtrace_ = true;
    frames_.push_back({address, resolved.empty() ? kNoSymbol : symbol_id(resolved)});
  }

  // The id of a resolved frame's text, announcing the symbol it names the first time.
  SymbolId symbol_id(std::string_view resolved) {
    const auto known = symbol_ids_.find(resolved);
    if (known != symbol_ids_.end()) {
      return known->second;
    }
    const auto id = static_cast<SymbolId>(symbol_ids_.size() + 1);
    symbol_ids_.emplace(resolved, id);
    sink_.symbol(id, parse_resolved_frame(resolved));
    return id;
  }

  void deliver() {
    if (in_group_) {
      group_.call_count = calls_.size();
      sink_.group(group_);
    }
    arguments_.clear();
    for (const ArgumentText& a : argument_texts_) {
      arguments_.push_back({stored(a.name), stored(a.value)});
    }
    for (const PendingCall& pending : calls_) {
      CallRecord record;
      record.call = pending.call;
      record.function = stored({pending.function_begin, pending.function_size});
      record.arguments = std::span<const Argument>(arguments_)
                             .subspan(pending.arguments_begin, pending.argument_count);
      record.frames = frames_;
      sink_.call(record);
    }
    clear_pending();
  }

  void clear_pending() {
    calls_.clear();
    argument_texts_.clear();
    frames_.clear();
    text_.clear();
    in_backtrace_ = false;
    in_group_ = false;
  }

  InputStream& input_;
  TraceSink& sink_;
  Diagnostics& diagnostics_;
  bool line_complete_ = true;
  std::uint32_t pid_ = 0;
  static constexpr std::uint64_t kMaxHeldLines = 1'000'000;
  static constexpr std::uint64_t kMaxHeldBytes = std::uint64_t{16} << 20;
  std::uint64_t held_lines_ = 0;  // lines since the last call line that are not part of a call
  std::uint64_t held_bytes_ = 0;

  // The record being read.
  std::vector<PendingCall> calls_;
  std::vector<ArgumentText> argument_texts_;
  std::vector<Frame> frames_;
  std::string text_;
  bool in_backtrace_ = false;
  bool in_group_ = false;  // the record has a `# allocation summary`
  CallGroup group_;
  std::uint64_t record_line_ = 0;
  std::vector<Argument> arguments_;

  // Reused for registry and comment lines.
  ModuleInfo module_;
  LeakSummary leak_;
  bool leak_type_seen_ = false;
  static constexpr std::size_t kNoHeapBlock = ~std::size_t{0};
  std::size_t heap_field_ = kNoHeapBlock;  // the next heap field line expected
  HeapInfo heap_;
  TraceEnd trace_end_;
  std::optional<ProcessInfo> held_process_;
  DeclaredOnce declared_;   // registries repeated by the traces of a concatenation: passed on once
  std::string heap_lines_;  // the block's lines so far
  ContextInfo context_;
  ResourceType resource_type_;
  Mapping mapping_;
  Attachment attachment_;

  // Registered type name -> id; looked up by string_view without building a string.
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>{}(name);
    }
  };
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> type_ids_;
  std::unordered_map<std::string, SymbolId, NameHash, std::equal_to<>> symbol_ids_;
};

}  // namespace

void read_sprtrace_text(InputStream& input, TraceSink& sink, Diagnostics& diagnostics) {
  TextReader(input, sink, diagnostics).run();
}

}  // namespace rtrace
