#include "formats/mpatrol/mptrace_report.h"

#include <fmt/format.h>

#include <iterator>
#include <utility>

#include "formats/mpatrol/text_columns.h"
#include "io/terminal_text.h"

// Layout and rules of mptrace 1.5.1's output (fixtures/mpatrol/MANIFEST.md, and its outputs
// there): an event number counts A, R and F records only; "life" of a free is its event number
// minus that of the block's allocation; "count" and "bytes" are what is allocated after the event.

namespace rtrace::mpatrol {
namespace {

constexpr const char* kMptraceVersion = "1.4";  // the version mptrace 1.5.1 gives itself

constexpr std::string_view kTableHeader =
    " event  type     index      allocation          size    life   count     bytes\n"
    "------  ------  ------  ------------------  --------  ------  ------  --------\n";
constexpr std::string_view kSourceIndent = "                       ";

void append_size(std::string& out, std::uint64_t bytes) {
  append_decimal(out, bytes);
  out.append(bytes == 1 ? " byte" : " bytes");
}

// atotal / acount rounded to the nearest, ties to even; 0 without allocations.
std::uint64_t round_divide(std::uint64_t n, std::uint64_t d) {
  if (d == 0) {
    return 0;
  }
  const std::uint64_t q = n / d;
  const std::uint64_t r2 = (n - q * d) * 2;  // compare the remainder with d / 2 exactly
  if (r2 < d || (r2 == d && (q & 1U) == 0)) {
    return q;
  }
  return q + 1;
}

// `text` as it may stand inside a C comment: a `*/` in it, which would end the comment and make
// the rest of a file name code of the simulation program, is written `*\/`; control characters
// as `\xHH` (so that no backslash-newline can join a `*` and a `/` either).
std::string c_comment_text(std::string_view name) {
  const std::string text = terminal_safe(name);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/') {
      out += '\\';
    }
  }
  return out;
}

}  // namespace

MptraceReport::MptraceReport(MptraceOptions options, OutputStream& out, OutputStream* hatf,
                             OutputStream* sim, Diagnostics& diagnostics, std::string input_name)
    : options_(std::move(options)),
      out_(out),
      hatf_(hatf),
      sim_(sim),
      diagnostics_(diagnostics),
      input_name_(std::move(input_name)) {
  if (sim_ != nullptr) {
    sim_->write(fmt::format("/* produced by {} {} from {} */\n\n\n", options_.tool_name,
                            kMptraceVersion, c_comment_text(options_.trace_name)));
    sim_->write(
        "#include <stdio.h>\n#include <stdlib.h>\n\n\n"
        "typedef struct event\n{\n"
        "    unsigned long index;\n    unsigned long size;\n    char resize;\n"
        "}\nevent;\n\n\n"
        "static event events[] =\n{\n");
  }
  if (hatf_ != nullptr) {
    hatf_->write(
        fmt::format("## Tracename: {}\n## Author: Unknown\n## Date: Unknown\n## DTDURL: hatf.dtd\n"
                    "## Description: Converted to HATF by {} {}.\n\n",
                    options_.hatf_name, options_.tool_name, kMptraceVersion));
  }
}

void MptraceReport::header(const Header& /*header*/) {
  if (options_.verbose) {
    out_.write(kTableHeader);
  }
}

void MptraceReport::event(const Event& event) {
  switch (event.type) {
    case RecordType::Alloc:
      return allocate(event);
    case RecordType::Realloc:
      return reallocate(event);
    case RecordType::Free:
      return release(event);
    case RecordType::Reserve:
    case RecordType::Internal:
      return system_block(event);
  }
}

void MptraceReport::allocate(const Event& event) {
  ++current_event_;
  bool created = false;
  Allocation& block = blocks_.find_or_create(event.index, created);
  if (created) {
    block.event = current_event_;
  } else if (!block.freed) {
    warn(event, fmt::format("allocation index {} has been allocated twice without being freed",
                            event.index));
  }
  // As in mptrace, an index allocated again keeps the event number of its first allocation,
  // and a block allocated twice leaves its first simulation slot taken.
  block.address = event.address;
  block.size = event.size;
  block.freed = false;
  block.slot = sim_ != nullptr ? slots_.take() : 0;
  count_allocation(event.size);
  if (options_.verbose) {
    Row row;
    row_start(row, "  alloc   ", event.index, event.address, event.size);
    row.text("        ");  // no life
    row_end(row);
    source_line(event);
  }
  if (hatf_ != nullptr) {
    fmt::format_to(std::back_inserter(hatf_->buffer()), "1 {} {:#x}\n", event.size, event.address);
    hatf_->maybe_flush();
  }
  if (block.slot != 0) {
    sim_slots_used_ = std::max(sim_slots_used_, block.slot);
    fmt::format_to(std::back_inserter(sim_->buffer()), "    {{{}, {}, 0}},\n", block.slot,
                   event.size);
    sim_->maybe_flush();
  }
}

void MptraceReport::reallocate(const Event& event) {
  ++current_event_;
  Allocation* block = blocks_.find(event.index);
  if (block == nullptr) {
    warn(event, fmt::format("unknown allocation index {}", event.index));
    return;
  }
  if (block->freed) {
    warn(event, fmt::format("allocation index {} has already been freed", event.index));
  }
  ++stats_.free_count;
  stats_.free_bytes += block->size;
  count_allocation(event.size);
  if (options_.verbose) {
    Row row;
    row_start(row, "  realloc ", event.index, event.address, event.size);
    row.text("        ");  // no life
    row_end(row);
    source_line(event);
  }
  if (hatf_ != nullptr) {
    fmt::format_to(std::back_inserter(hatf_->buffer()), "4 {} {:#x} {:#x}\n", event.size,
                   block->address, event.address);
    hatf_->maybe_flush();
  }
  if (block->slot != 0) {
    fmt::format_to(std::back_inserter(sim_->buffer()), "    {{{}, {}, 1}},\n", block->slot,
                   event.size);
    sim_->maybe_flush();
  }
  block->address = event.address;
  block->size = event.size;
}

void MptraceReport::release(const Event& event) {
  ++current_event_;
  Allocation* block = blocks_.find(event.index);
  if (block == nullptr) {
    warn(event, fmt::format("unknown allocation index {}", event.index));
    return;
  }
  if (block->freed) {
    warn(event, fmt::format("allocation index {} has already been freed", event.index));
  }
  ++stats_.free_count;
  stats_.free_bytes += block->size;
  if (options_.verbose) {
    Row row;
    row_start(row, "  free    ", event.index, block->address, block->size);
    row.text("  ").decimal(current_event_ - block->event, 6);
    row_end(row);
    source_line(event);
  }
  if (hatf_ != nullptr) {
    fmt::format_to(std::back_inserter(hatf_->buffer()), "2 {:#x}\n", block->address);
    hatf_->maybe_flush();
  }
  if (block->slot != 0) {
    fmt::format_to(std::back_inserter(sim_->buffer()), "    {{{}, 0, 0}},\n", block->slot);
    sim_->maybe_flush();
    slots_.release(block->slot);
    block->slot = 0;
  }
  blocks_.mark_freed(event.index, *block);
}

void MptraceReport::system_block(const Event& event) {
  const bool reserve = event.type == RecordType::Reserve;
  ++(reserve ? stats_.reserve_count : stats_.internal_count);
  (reserve ? stats_.reserve_bytes : stats_.internal_bytes) += event.size;
  if (options_.verbose) {
    Row row;
    row.text(reserve ? "        reserve         " : "        internal        ")
        .hex16_upper(event.address)
        .text("  ")
        .decimal(event.size, 8)
        .text("\n");
    row.append_to(out_.buffer());
    out_.maybe_flush();
  }
}

void MptraceReport::count_allocation(std::uint64_t size) {
  ++stats_.alloc_count;
  stats_.alloc_bytes += size;
  stats_.peak_count = std::max(stats_.peak_count, stats_.alloc_count - stats_.free_count);
  stats_.peak_bytes = std::max(stats_.peak_bytes, stats_.alloc_bytes - stats_.free_bytes);
  // A 0-byte allocation never counts as the smallest.
  if (size != 0 && (stats_.smallest == 0 || size < stats_.smallest)) {
    stats_.smallest = size;
  }
  stats_.largest = std::max(stats_.largest, size);
}

// "%6lu<type>%6lu  0x%016lX  %8lu": event number, type, index, address, size.
void MptraceReport::row_start(Row& row, const char* type, std::uint64_t index,
                              std::uint64_t address, std::uint64_t size) const {
  row.decimal(current_event_, 6)
      .text(type)
      .decimal(index, 6)
      .text("  ")
      .hex16_upper(address)
      .text("  ")
      .decimal(size, 8);
}

// "  %6lu  %8lu\n": blocks and bytes allocated after the event; then the row is output.
void MptraceReport::row_end(Row& row) {
  row.text("  ")
      .decimal(stats_.alloc_count - stats_.free_count, 6)
      .text("  ")
      .decimal(stats_.alloc_bytes - stats_.free_bytes, 8)
      .text("\n");
  row.append_to(out_.buffer());
  out_.maybe_flush();
}

// With --source: " thread N", " in FUNC" and " at FILE line N", each when known, on a line of
// their own; nothing when none is known.
void MptraceReport::source_line(const Event& event) {
  if (!options_.source) {
    return;
  }
  const bool at_line = !event.file.empty() && event.line != 0;
  if (event.thread == 0 && event.function.empty() && !at_line) {
    return;
  }
  std::string& line = out_.buffer();
  line.append(kSourceIndent);
  if (event.thread != 0) {
    Row thread;
    thread.text(" thread ").decimal(event.thread).append_to(line);
  }
  if (!event.function.empty()) {
    line.append(" in ");
    line.append(event.function);
  }
  if (at_line) {
    line.append(" at ");
    line.append(event.file);
    line.append(" line ");
    append_decimal(line, event.line);
  }
  line.push_back('\n');
  out_.maybe_flush();
}

void MptraceReport::end(Ending /*ending*/) {
  finish_side_files();
  if (options_.verbose) {
    out_.write("\n");
  }
  print_statistics();
}

void MptraceReport::abandon() {
  finish_side_files();
}

void MptraceReport::print_statistics() {
  const MptraceStatistics& s = stats_;
  std::string& o = out_.buffer();
  const auto line = [&o](const char* label, std::uint64_t count, std::uint64_t bytes) {
    o.append(label);
    append_decimal(o, count);
    o.append(" (");
    append_size(o, bytes);
    o.append(")\n");
  };
  o.append("memory allocation tracing statistics\n------------------------------------\n");
  line("allocated: ", s.alloc_count, s.alloc_bytes);
  line("freed:     ", s.free_count, s.free_bytes);
  line("unfreed:   ", s.alloc_count - s.free_count, s.alloc_bytes - s.free_bytes);
  line("peak:      ", s.peak_count, s.peak_bytes);
  line("reserved:  ", s.reserve_count, s.reserve_bytes);
  line("internal:  ", s.internal_count, s.internal_bytes);
  line("total:     ", s.reserve_count + s.internal_count, s.reserve_bytes + s.internal_bytes);
  o.append("\nsmallest size: ");
  append_size(o, s.smallest);
  o.append("\nlargest size:  ");
  append_size(o, s.largest);
  o.append("\naverage size:  ");
  append_size(o, round_divide(s.alloc_bytes, s.alloc_count));
  o.push_back('\n');
  out_.maybe_flush();
}

void MptraceReport::finish_side_files() {
  if (side_files_done_) {
    return;
  }
  side_files_done_ = true;
  if (sim_ != nullptr) {
    sim_->write(fmt::format(
        "    {{0, 0, 0}}\n}};\n\n\n"
        "int main(void)\n{{\n"
        "    void *p[{}];\n"
        "    event *e;\n\n"
        "    for (e = events; e->index != 0; e++)\n"
        "        if (e->resize)\n"
        "        {{\n"
        "            if ((p[e->index - 1] = realloc(p[e->index - 1], e->size)) == NULL)\n"
        "            {{\n"
        "                fputs(\"out of memory\\n\", stderr);\n"
        "                exit(EXIT_FAILURE);\n"
        "            }}\n"
        "        }}\n"
        "        else if (e->size == 0)\n"
        "            free(p[e->index - 1]);\n"
        "        else if ((p[e->index - 1] = malloc(e->size)) == NULL)\n"
        "        {{\n"
        "            fputs(\"out of memory\\n\", stderr);\n"
        "            exit(EXIT_FAILURE);\n"
        "        }}\n"
        "    return EXIT_SUCCESS;\n}}\n",
        sim_slots_used_));
  }
}

}  // namespace rtrace::mpatrol
