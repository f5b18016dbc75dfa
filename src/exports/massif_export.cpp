// Valgrind massif's massif.out format, for ms_print and massif-visualizer: the chosen resource
// type's live bytes at up to kMaxSnapshots moments spread over the trace, and a detailed
// snapshot (the tree of backtraces holding the bytes) at the peak.
#include <fmt/format.h>

#include <algorithm>

#include "exports/allocation_profile.h"
#include "exports/call_tree.h"
#include "exports/stack_exports.h"
#include "io/terminal_text.h"

namespace rtrace::exporters {
namespace {

// Snapshots in the file, the peak included (massif itself keeps at most 100 by default).
constexpr std::size_t kMaxSnapshots = 100;
// Entries below this share of the peak are summed into one line, as massif does (--threshold).
constexpr double kThresholdPercent = 1.0;

class MassifExport final : public AllocationProfile {
 public:
  MassifExport(OutputStream& out, const ExportOptions& options)
      : out_(out), type_name_(options.resource_type) {}

  void finish() override {
    settle();
    const TypeProfile* type = chosen_type(type_name_);
    std::vector<TimelinePoint> points;
    if (type != nullptr) {
      points = spread(type->timeline.points(), kMaxSnapshots - 1);
    }
    // Without a clock that moves the calls are the clock (time_unit "i").
    const bool timed = !points.empty() && points.back().time_ns > points.front().time_ns;
    out_.buffer() += fmt::format(
        "desc: rtrace export massif{}\ncmd: {}\ntime_unit: {}\n",
        type == nullptr ? "" : " (" + terminal_safe(type->type.type) + ")",
        process_name().empty() ? "(unknown)" : terminal_safe(process_name()), timed ? "ms" : "i");
    // The peak goes in at its place in time, replacing a plain snapshot of the same call.
    std::size_t number = 0;
    bool peak_written = false;
    for (const TimelinePoint& point : points) {
      if (!peak_written && point.index >= type->peak_index) {
        write_snapshot(number++, time_of(type->peak_time_ns, type->peak_index, timed),
                       type->peak_bytes, type);
        peak_written = true;
        if (point.index == type->peak_index) {
          continue;
        }
      }
      write_snapshot(number++, time_of(point.time_ns, point.index, timed), point.value, nullptr);
    }
    if (points.empty()) {
      // Nothing allocated: one empty snapshot, so that ms_print still reads the file.
      write_snapshot(0, 0, 0, nullptr);
    }
    out_.flush();
  }

 private:
  std::uint64_t time_of(std::uint64_t time_ns, std::uint64_t index, bool timed) const {
    return timed ? (time_ns - first_time_ns()) / 1'000'000 : index;
  }

  // `peak_of`: write the detailed tree of that type's peak.
  void write_snapshot(std::size_t number, std::uint64_t time, std::uint64_t bytes,
                      const TypeProfile* peak_of) {
    out_.buffer() += fmt::format(
        "#-----------\nsnapshot={}\n#-----------\ntime={}\nmem_heap_B={}\nmem_heap_extra_B=0\n"
        "mem_stacks_B=0\n",
        number, time, bytes);
    if (peak_of == nullptr) {
      out_.buffer() += "heap_tree=empty\n";
      return;
    }
    out_.buffer() += "heap_tree=peak\n";
    const CallTree tree = peak_tree(effective_resource_type(peak_of->type.id));
    const auto threshold =
        static_cast<std::uint64_t>(static_cast<double>(bytes) * kThresholdPercent / 100.0);
    write_node(tree, 0, 0, threshold,
               "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.");
  }

  // The sites' bytes at the peak, innermost frame at the top as massif shows them.
  CallTree peak_tree(std::uint32_t type) const {
    std::vector<std::vector<std::string>> stacks;
    std::vector<std::uint64_t> values;
    for (const Site& site : sites()) {
      if (site.type != type || site.peak_bytes == 0) {
        continue;
      }
      std::vector<std::string> labels;
      for (const Frame& frame : frames(site)) {
        // A name's control characters (a line break forging an entry, terminal escapes)
        // print escaped.
        labels.push_back(terminal_safe(massif_label(frame)));
      }
      if (labels.empty()) {
        labels.emplace_back("0x0: ???");
      }
      stacks.push_back(std::move(labels));
      values.push_back(site.peak_bytes);
    }
    return build_call_tree(stacks, values);
  }

  // "0x4005BE: main (leaky.c:40)" or "0x7F75690A28CC: ??? (in /usr/lib/.../libc.so.6)".
  std::string massif_label(const Frame& frame) const {
    std::string label = fmt::format("0x{:X}: ", frame.address);
    const Symbol* s = symbol_of(frame);
    if (s != nullptr && !s->where.function.empty()) {
      label += s->where.qualified_name();
      if (!s->where.file.empty()) {
        return label + fmt::format(" ({}:{})", s->where.file, s->where.line);
      }
      return s->module.empty() ? label : label + fmt::format(" (in {})", s->module);
    }
    const std::string name = frame_name(frame);
    const std::size_t in = name.find(" in ");
    return label + (in == std::string::npos ? "???" : "??? (" + name.substr(in + 1) + ")");
  }

  void write_node(const CallTree& tree, std::uint32_t index, std::size_t depth,
                  std::uint64_t threshold, const std::string& label) {
    const CallTreeNode& node = tree.nodes[index];
    std::vector<std::uint32_t> shown;
    std::uint64_t below = 0;
    std::size_t below_count = 0;
    for (const std::uint32_t child : node.children) {
      if (tree.nodes[child].value >= threshold && tree.nodes[child].value > 0) {
        shown.push_back(child);
      } else {
        below += tree.nodes[child].value;
        ++below_count;
      }
    }
    std::ranges::stable_sort(shown, [&](std::uint32_t a, std::uint32_t b) {
      return tree.nodes[a].value > tree.nodes[b].value;
    });
    const std::string indent(depth, ' ');
    out_.buffer() += fmt::format("{}n{}: {} {}\n", indent, shown.size() + (below_count > 0 ? 1 : 0),
                                 node.value, label);
    for (const std::uint32_t child : shown) {
      write_node(tree, child, depth + 1, threshold, tree.nodes[child].name);
    }
    if (below_count > 0) {
      out_.buffer() +=
          fmt::format("{} n0: {} in {} place{}, all below massif's threshold ({:.2f}%)\n", indent,
                      below, below_count, below_count == 1 ? "" : "s", kThresholdPercent);
    }
    out_.maybe_flush();
  }

  OutputStream& out_;
  std::string type_name_;
};

}  // namespace

ExportInfo massif_export() {
  return {
      .name = "massif",
      .description = "valgrind massif.out: live bytes over time, peak detail (ms_print)",
      .suffix = ".massif",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<MassifExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
