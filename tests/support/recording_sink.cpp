#include "support/recording_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rtrace::test {
namespace {

std::string describe_position(const SourcePosition& p) {
  std::string text = p.function + p.parameters;
  if (!p.file.empty()) {
    text += fmt::format(" at {}:{}", p.file, p.line);
  }
  if (p.column != 0) {
    text += fmt::format(":{}", p.column);
  }
  return text;
}

}  // namespace

std::string describe_symbol(const Symbol& s) {
  if (s.unknown()) {
    return "??";
  }
  std::string text = describe_position(s.where);
  if (!s.module.empty()) {
    text += fmt::format(" in {}", s.module);
  }
  for (const SourcePosition& call : s.inlined_by) {
    text += fmt::format(" (inlined by {})", describe_position(call));
  }
  return text;
}

std::string RecordingSink::describe_call(const CallRecord& r) const {
  const std::uint64_t ns = r.call.timestamp_ns;
  const std::string ts =
      ns % 1'000'000 == 0 ? std::to_string(ns / 1'000'000) : fmt::format("{}ns", ns);
  std::string line =
      fmt::format("call #{} {} kind={} type={} ctx={:#x} ts={} size={} id={:#x}", r.call.index,
                  r.function, static_cast<int>(r.call.kind), r.call.resource_type, r.call.context,
                  ts, r.call.size, r.call.resource_id);
  if (r.call.pid != pid_) {
    line += fmt::format(" pid={}", r.call.pid);
  }
  if (r.call.thread != 0) {
    line += fmt::format(" thread={}", r.call.thread);
  }
  for (const Argument& a : r.arguments) {
    line += fmt::format(" ${}={}", a.name, a.value);
  }
  if (!r.frames.empty()) {
    std::vector<std::string> frames;
    for (const Frame& frame : r.frames) {
      std::string text = fmt::format("{:#x}", frame.address);
      if (frame.symbol != kNoSymbol) {
        const auto known = symbols_.find(frame.symbol);
        text += known == symbols_.end() ? std::string("<unannounced symbol>")
                                        : "<" + describe_symbol(known->second) + ">";
      }
      frames.push_back(std::move(text));
    }
    line += fmt::format(" bt=[{}]", fmt::join(frames, ","));
  }
  return line;
}

// The sp-rtrace handshake fields travel as metadata; they print as they always did.
void RecordingSink::header(const TraceHeader& h) {
  const Metadata& m = h.metadata;
  start_text_ = m.get_or("sprtrace.timestamp", "");
  const std::string_view version =
      m.get_or("sprtrace.protocol_version", m.get_or("sprtrace.text_version", "2.0"));
  lines_.push_back(
      fmt::format("handshake {} arch={} {} ptr={} origin={} filters={}{}{}", version, h.arch,
                  m.get_or("sprtrace.byte_order", "little") == "big" ? "BE" : "LE",
                  m.get_or("sprtrace.pointer_size", "8"), h.origin, h.applied.leaks ? "l" : "",
                  h.applied.compress ? "c" : "", h.applied.resolve ? "r" : ""));
}

void RecordingSink::process(const ProcessInfo& i) {
  if (pid_ == 0) {
    pid_ = i.pid;
  }
  lines_.push_back(fmt::format("process pid={} name={} start={}.{:06} text={} depth={}", i.pid,
                               i.name, i.start.seconds, i.start.microseconds, start_text_,
                               i.backtrace_depth ? std::to_string(*i.backtrace_depth) : "none"));
  if (i.command_line) {
    lines_.back() += fmt::format(" argv=[{}]{}", fmt::join(i.command_line->arguments, "|"),
                                 i.command_line->cut ? " cut" : "");
  }
}

void RecordingSink::trace_end(const TraceEnd& e) {
  lines_.push_back(fmt::format("end pid={} reason={} signal={} time={}.{:06} peak={} rss={}", e.pid,
                               end_reason_name(e.reason), e.signal, e.time.seconds,
                               e.time.microseconds, e.peak_rss_bytes, e.rss_bytes));
}

void RecordingSink::output_settings(const OutputSettings& s) {
  lines_.push_back(fmt::format("output path={} options={}", s.path, s.options));
}

void RecordingSink::module(const ModuleInfo& m) {
  lines_.push_back(
      fmt::format("module [{}] {} ({}.{})", m.id, m.name, m.version_major, m.version_minor));
}

void RecordingSink::mapping(const Mapping& m) {
  lines_.push_back(fmt::format("mapping {:#x}-{:#x} {}", m.from, m.to, m.path));
}

void RecordingSink::context(const ContextInfo& c) {
  lines_.push_back(fmt::format("context {:#x} {}", c.id, c.name));
}

void RecordingSink::resource_type(const ResourceType& t) {
  lines_.push_back(
      fmt::format("resource {} flags={:#x} {} ({})", t.id, t.flags, t.type, t.description));
}

void RecordingSink::symbol(SymbolId id, const Symbol& s) {
  symbols_[id] = s;
}

void RecordingSink::call(const CallRecord& r) {
  ++calls_;
  lines_.push_back(describe_call(r));
}

void RecordingSink::group(const CallGroup& g) {
  lines_.push_back(
      fmt::format("group calls={} blocks={} size={}", g.call_count, g.block_count, g.total_size));
}

void RecordingSink::leak_summary(const LeakSummary& s) {
  lines_.push_back(fmt::format("leaks type={} {} ({}) blocks={} bytes={}", s.resource_type, s.type,
                               s.description, s.blocks, s.bytes));
}

void RecordingSink::heap_info(const HeapInfo& h) {
  lines_.push_back(fmt::format("heap {:#x} {:#x} {:#x} {:#x} {} {} {} {} {} {} {} {} {} {}",
                               h.heap_bottom, h.heap_top, h.lowest_block, h.highest_block, h.arena,
                               h.ordblks, h.smblks, h.hblks, h.hblkhd, h.usmblks, h.fsmblks,
                               h.uordblks, h.fordblks, h.keepcost));
}

void RecordingSink::attachment(const Attachment& a) {
  lines_.push_back(fmt::format("attachment {} {}", a.name, a.path));
}

void RecordingSink::note(const Note& note) {
  lines_.push_back(fmt::format("note {}", note.text));
}

void RecordingSink::finish() {
  ++finishes_;
}

std::string RecordingSink::text() const {
  return fmt::format("{}", fmt::join(lines_, "\n"));
}

}  // namespace rtrace::test
