#include "support/recording_sink.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rtrace::test {
namespace {

std::string describe_call(const CallRecord& r) {
  std::string line =
      fmt::format("call #{} {} kind={} type={} ctx={:#x} ts={} size={} id={:#x}", r.call.index,
                  r.function, static_cast<int>(r.call.kind), r.call.resource_type, r.call.context,
                  r.call.timestamp_ms, r.call.size, r.call.resource_id);
  for (const Argument& a : r.arguments) {
    line += fmt::format(" ${}={}", a.name, a.value);
  }
  if (!r.frames.empty()) {
    line += fmt::format(" bt=[{:#x}]", fmt::join(r.frames, ","));
  }
  return line;
}

}  // namespace

void RecordingSink::handshake(const Handshake& h) {
  lines_.push_back(fmt::format("handshake {}.{} arch={} {} ptr={} origin={} filters={}{}{}",
                               h.version.major, h.version.minor, h.arch,
                               h.byte_order == ByteOrder::Big ? "BE" : "LE", h.pointer_size,
                               h.origin, h.filters.leaks ? "l" : "", h.filters.compress ? "c" : "",
                               h.filters.resolve ? "r" : ""));
}

void RecordingSink::process_info(const ProcessInfo& i) {
  lines_.push_back(fmt::format("process pid={} name={} start={}.{:06} text={} depth={}", i.pid,
                               i.name, i.start.seconds, i.start.microseconds, i.start_text,
                               i.backtrace_depth ? std::to_string(*i.backtrace_depth) : "none"));
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

void RecordingSink::symbol(Address address, const SymbolInfo& s) {
  std::string line = fmt::format("symbol {:#x} {} where={} {}", address, s.function,
                                 static_cast<int>(s.where), s.location);
  for (const SymbolInfo::InlinedCall& call : s.inlined_by) {
    line += fmt::format(" (inlined by {} at {})", call.function, call.location);
  }
  lines_.push_back(std::move(line));
}

void RecordingSink::call(const CallRecord& r) {
  ++calls_;
  lines_.push_back(describe_call(r));
}

void RecordingSink::call_group(const CallGroup& g) {
  lines_.push_back(fmt::format("group blocks={} size={} bt=[{:#x}]", g.block_count, g.total_size,
                               fmt::join(g.frames, ",")));
  for (const CallRecord& r : g.calls) {
    ++calls_;
    lines_.push_back("  " + describe_call(r));
  }
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

void RecordingSink::comment(std::string_view text) {
  lines_.push_back(fmt::format("comment {}", text));
}

void RecordingSink::finish() {
  ++finishes_;
}

std::string RecordingSink::text() const {
  return fmt::format("{}", fmt::join(lines_, "\n"));
}

}  // namespace rtrace::test
