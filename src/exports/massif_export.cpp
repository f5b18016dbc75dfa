// Valgrind massif's massif.out format, for ms_print and massif-visualizer: the chosen resource
// type's live bytes in snapshots at regular intervals (MassifSnapshots), every detailed_freq-th
// one detailed, and the peak detailed, as massif itself writes them. A detailed snapshot holds
// the allocation tree of that moment: the sites' bytes on the backtraces' calling-context tree,
// turned so that the innermost frame is at the top, as massif shows it.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/massif_snapshots.h"
#include "exports/stack_exports.h"
#include "io/terminal_text.h"
#include "reports/calling_context_tree.h"

namespace rtrace::exporters {
namespace {

using reports::CallingContextTree;

// The sites of one type on one calling-context tree whose paths run from the innermost frame
// (the root's children) to the outermost caller: massif's allocation tree.
struct AllocationTree {
  CallingContextTree tree;
  std::vector<CallingContextTree::NodeId> node_of_site;           // by site index
  std::vector<std::vector<CallingContextTree::NodeId>> children;  // in order of first use
};

class MassifExport final : public AllocationProfile {
 public:
  MassifExport(OutputStream& out, const ExportOptions& options)
      : out_(out),
        type_name_(options.resource_type),
        max_snapshots_(std::max<std::size_t>(options.max_snapshots, 3)),
        detailed_freq_(options.detailed_freq),
        threshold_percent_(options.threshold_percent) {}

  void finish() override {
    settle();
    const TypeProfile* type = chosen_type(type_name_);
    const MassifSnapshots* series = nullptr;
    if (type != nullptr) {
      const auto found = series_.find(type->type.id);
      series = found == series_.end() ? nullptr : &found->second;
    }
    std::vector<MassifSnapshot> snapshots;
    if (series != nullptr) {
      snapshots = series->snapshots();
      // The end state, when the last change fell between two snapshots.
      if (series->changes() > 0 &&
          (snapshots.empty() || snapshots.back().point.index != series->last().index)) {
        snapshots.push_back({.point = series->last()});
      }
    }
    // Without a clock that moves the calls are the clock (time_unit "i").
    const bool timed =
        !snapshots.empty() && snapshots.back().point.time_ns > snapshots.front().point.time_ns;
    out_.buffer() += fmt::format(
        "desc: rtrace export massif{}{}\ncmd: {}\ntime_unit: {}\n",
        type == nullptr ? "" : " (" + terminal_safe(type->type.type) + ")",
        sample_interval() != 0 && type != nullptr && type->type.type == "memory"
            ? ", " + sampling_note(sample_interval())
            : std::string(),
        process_name().empty() ? "(unknown)" : terminal_safe(process_name()), timed ? "ms" : "i");
    if (snapshots.empty()) {
      // Nothing allocated: one empty snapshot, so that ms_print still reads the file.
      write_header(0, 0, 0, "empty");
      out_.flush();
      return;
    }
    const AllocationTree tree = allocation_tree(type->type.id);
    // The peak goes in at its place in time, replacing a snapshot of the same call.
    std::size_t number = 0;
    bool peak_written = false;
    for (const MassifSnapshot& snapshot : snapshots) {
      if (!peak_written && snapshot.point.index >= type->peak_index) {
        write_peak(number++, *type, tree, timed);
        peak_written = true;
        if (snapshot.point.index == type->peak_index) {
          continue;
        }
      }
      write_snapshot(number++, snapshot, tree, timed);
    }
    out_.flush();
  }

 protected:
  void live_changed(const TypeProfile& type, const TimelinePoint& point) override {
    // Two of the snapshots are the peak and the end state; the series keeps the others.
    auto [found, added] = series_.try_emplace(type.type.id, max_snapshots_ - 2, detailed_freq_);
    MassifSnapshots& series = found->second;
    std::vector<SiteBytes> alive;
    if (series.next() == MassifSnapshots::Take::Detailed) {
      const std::vector<Site>& all = sites();
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].type == type.type.id && all[i].live_bytes > 0) {
          alive.emplace_back(static_cast<std::uint32_t>(i), all[i].live_bytes);
        }
      }
    }
    series.add(point, std::move(alive));
  }

 private:
  std::uint64_t time_of(const TimelinePoint& point, bool timed) const {
    return timed ? (point.time_ns - first_time_ns()) / 1'000'000 : point.index;
  }

  void write_header(std::size_t number, std::uint64_t time, std::uint64_t bytes,
                    std::string_view tree) {
    out_.buffer() += fmt::format(
        "#-----------\nsnapshot={}\n#-----------\ntime={}\nmem_heap_B={}\nmem_heap_extra_B=0\n"
        "mem_stacks_B=0\nheap_tree={}\n",
        number, time, bytes, tree);
  }

  void write_snapshot(std::size_t number, const MassifSnapshot& snapshot,
                      const AllocationTree& tree, bool timed) {
    write_header(number, time_of(snapshot.point, timed), snapshot.point.value,
                 snapshot.detailed ? "detailed" : "empty");
    if (snapshot.detailed) {
      write_tree(tree, snapshot.sites, snapshot.point.value);
    }
  }

  void write_peak(std::size_t number, const TypeProfile& type, const AllocationTree& tree,
                  bool timed) {
    write_header(number, time_of({.time_ns = type.peak_time_ns, .index = type.peak_index}, timed),
                 type.peak_bytes, "peak");
    std::vector<SiteBytes> alive;
    const std::vector<Site>& all = sites();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].type == type.type.id && all[i].peak_bytes > 0) {
        alive.emplace_back(static_cast<std::uint32_t>(i), all[i].peak_bytes);
      }
    }
    write_tree(tree, alive, type.peak_bytes);
  }

  // Every site of the type on one tree (a site without frames as one unknown frame, so that its
  // bytes still show), built once for all the snapshots.
  AllocationTree allocation_tree(std::uint32_t type) const {
    AllocationTree result;
    const std::vector<Site>& all = sites();
    result.node_of_site.resize(all.size(), CallingContextTree::kRoot);
    std::vector<Frame> outer_first;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].type != type) {
        continue;
      }
      // The tree takes frames innermost first and roots them at the last one: given the
      // outermost first, it roots them at the innermost, as massif's tree is.
      const std::span<const Frame> frames = this->frames(all[i]);
      outer_first.assign(frames.rbegin(), frames.rend());
      if (outer_first.empty()) {
        outer_first.push_back(Frame{});
      }
      result.node_of_site[i] = result.tree.intern(outer_first);
    }
    result.children.resize(result.tree.size());
    for (CallingContextTree::NodeId node = 1; node < result.tree.size(); ++node) {
      result.children[result.tree.parent(node)].push_back(node);
    }
    return result;
  }

  // The snapshot's tree: each site's bytes added to every node of its path.
  void write_tree(const AllocationTree& tree, const std::vector<SiteBytes>& alive,
                  std::uint64_t total) {
    std::vector<std::uint64_t> bytes(tree.tree.size(), 0);
    for (const auto& [site, value] : alive) {
      for (CallingContextTree::NodeId node = tree.node_of_site[site];
           node != CallingContextTree::kRoot; node = tree.tree.parent(node)) {
        bytes[node] += value;
      }
      bytes[CallingContextTree::kRoot] += value;
    }
    const auto threshold =
        static_cast<std::uint64_t>(static_cast<double>(total) * threshold_percent_ / 100.0);
    write_node(tree, bytes, CallingContextTree::kRoot, 0, threshold);
  }

  void write_node(const AllocationTree& tree, const std::vector<std::uint64_t>& bytes,
                  CallingContextTree::NodeId node, std::size_t depth, std::uint64_t threshold) {
    std::vector<CallingContextTree::NodeId> shown;
    std::uint64_t below = 0;
    std::size_t below_count = 0;
    for (const CallingContextTree::NodeId child : tree.children[node]) {
      if (bytes[child] == 0) {
        continue;  // nothing alive from there at this moment
      }
      if (bytes[child] >= threshold) {
        shown.push_back(child);
      } else {
        below += bytes[child];
        ++below_count;
      }
    }
    std::ranges::stable_sort(shown,
                             [&](CallingContextTree::NodeId a, CallingContextTree::NodeId b) {
                               return bytes[a] > bytes[b];
                             });
    const std::string indent(depth, ' ');
    out_.buffer() +=
        fmt::format("{}n{}: {} {}\n", indent, shown.size() + (below_count > 0 ? 1 : 0), bytes[node],
                    node == CallingContextTree::kRoot ? kRootLabel : label(tree, node));
    for (const CallingContextTree::NodeId child : shown) {
      write_node(tree, bytes, child, depth + 1, threshold);
    }
    if (below_count > 0) {
      out_.buffer() +=
          fmt::format("{} n0: {} in {} place{}, all below massif's threshold ({:.2f}%)\n", indent,
                      below, below_count, below_count == 1 ? "" : "s", threshold_percent_);
    }
    out_.maybe_flush();
  }

  std::string label(const AllocationTree& tree, CallingContextTree::NodeId node) {
    const std::uint32_t index = tree.tree.frame_index(node);
    if (index >= labels_.size()) {
      labels_.resize(tree.tree.frame_count());
    }
    std::string& known = labels_[index];
    if (known.empty()) {
      // A name's control characters (a line break forging an entry, terminal escapes) print
      // escaped.
      known = terminal_safe(massif_label(tree.tree.frame(index)));
    }
    return known;
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

  static constexpr std::string_view kRootLabel =
      "(heap allocation functions) malloc/new/new[], --alloc-fns, etc.";

  OutputStream& out_;
  std::string type_name_;
  std::size_t max_snapshots_;
  std::size_t detailed_freq_;
  double threshold_percent_;
  std::unordered_map<std::uint32_t, MassifSnapshots> series_;  // by type
  std::vector<std::string> labels_;                            // by frame index
};

}  // namespace

ExportInfo massif_export() {
  return {
      .name = "massif",
      .description = "valgrind massif.out: live bytes over time, detailed snapshots (ms_print)",
      .suffix = ".massif",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<MassifExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
