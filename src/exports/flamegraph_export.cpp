// A standalone interactive flame graph (icicle layout: the outermost caller on top) as one SVG
// file: a rectangle per frame with a <title> saying what it weighs, and flamegraph.js (embedded
// at build time) for click-to-zoom and search. Opens in any browser.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "exports/allocation_profile.h"
#include "exports/call_tree.h"
#include "exports/stack_exports.h"

namespace rtrace::exporters {

extern const std::string_view kFlamegraphScript;  // flamegraph.js, generated

namespace {

constexpr int kWidth = 1200;
constexpr int kMargin = 10;
constexpr int kFrameHeight = 16;
constexpr int kTop = 50;     // title and buttons
constexpr int kBottom = 30;  // the details line
// Frames narrower than this (in pixels at full width) are left out, with what they call.
constexpr double kMinWidthPixels = 0.1;

// A warm colour that depends only on the name, so a function keeps its colour across graphs.
std::string colour_of(std::string_view name) {
  const std::size_t h = std::hash<std::string_view>{}(name);
  return fmt::format("rgb({},{},{})", 205 + h % 50, (h >> 8) % 230, (h >> 16) % 55);
}

class FlamegraphExport final : public AllocationProfile {
 public:
  FlamegraphExport(OutputStream& out, const ExportOptions& options)
      : out_(out), weight_(parse_weight(options.weight)), type_name_(options.resource_type) {}

  void finish() override {
    settle();
    const TypeProfile* type = chosen_type(type_name_);
    std::vector<std::vector<std::string>> stacks;
    std::vector<std::uint64_t> values;
    for (const Site& site : sites()) {
      if (type != nullptr && site.type == effective_resource_type(type->type.id)) {
        stacks.push_back(stack_names(site));
        values.push_back(site.weight(weight_));
      }
    }
    tree_ = build_call_tree(stacks, values);
    const std::string title =
        fmt::format("{} {} of {}: {}", type == nullptr ? std::string("nothing") : type->type.type,
                    weight_name(), process_name().empty() ? "the trace" : process_name(),
                    human_weight(tree_.nodes[0].value, weight_)) +
        (sample_interval() != 0 && type != nullptr && type->type.type == "memory"
             ? ", " + sampling_note(sample_interval())
             : std::string());
    std::string frames;
    int depth = 0;
    layout(0, 0.0, 0, frames, depth);
    write_svg(title, frames, depth);
  }

 private:
  std::string_view weight_name() const {
    switch (weight_) {
      case Weight::Allocated:
        return "allocated";
      case Weight::Leaked:
        return "leaked";
      case Weight::Peak:
        return "alive at the peak";
      case Weight::Count:
        return "allocations";
    }
    return "";
  }

  // Appends node `index` (starting at fraction `x`, at `depth`) and its children to `frames`;
  // `deepest` becomes the deepest depth drawn.
  void layout(std::uint32_t index, double x, int depth, std::string& frames, int& deepest) {
    const CallTreeNode& node = tree_.nodes[index];
    const std::uint64_t total = std::max<std::uint64_t>(tree_.nodes[0].value, 1);
    const double width = static_cast<double>(node.value) / static_cast<double>(total);
    const double inner = kWidth - 2.0 * kMargin;
    if (width * inner < kMinWidthPixels || node.value == 0) {
      return;
    }
    deepest = std::max(deepest, depth);
    const std::string name = xml_escape(node.name);
    const std::string colour = colour_of(node.name);
    frames += fmt::format(
        "<g class=\"frame\" data-x=\"{:.9f}\" data-w=\"{:.9f}\" data-d=\"{}\" data-n=\"{}\">"
        "<title>{} ({}, {:.2f}%)</title>"
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" data-fill=\"{}\"/>"
        "<text x=\"{:.2f}\" y=\"{}\">{}</text></g>\n",
        x, width, depth, name, name, xml_escape(human_weight(node.value, weight_)), 100.0 * width,
        kMargin + x * inner, kTop + depth * kFrameHeight, width * inner, kFrameHeight - 1, colour,
        colour, kMargin + x * inner + 3, kTop + depth * kFrameHeight + 11,
        xml_escape(fitted(node.name, width * inner)));
    double child_x = x;
    for (const std::uint32_t child : node.children) {
      layout(child, child_x, depth + 1, frames, deepest);
      child_x += static_cast<double>(tree_.nodes[child].value) / static_cast<double>(total);
    }
  }

  // The label that fits a rectangle `pixels` wide (7 pixels a character), as flamegraph.js does.
  static std::string fitted(const std::string& name, double pixels) {
    const auto fits = static_cast<std::size_t>(std::max(0.0, (pixels - 6) / 7));
    if (fits < 3) {
      return "";
    }
    return name.size() <= fits ? name : name.substr(0, fits - 2) + "..";
  }

  void write_svg(const std::string& title, const std::string& frames, int deepest) {
    const int height = kTop + (deepest + 1) * kFrameHeight + kBottom;
    out_.buffer() += fmt::format(
        "<?xml version=\"1.0\" standalone=\"no\"?>\n"
        "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" data-left=\"{2}\" data-width=\"{3}\">\n"
        "<style>text {{ font-family: monospace; font-size: 12px; fill: #000; }} "
        "g.frame {{ cursor: pointer; }} g.frame rect {{ stroke: #fff; stroke-width: 0.5; }} "
        ".button {{ cursor: pointer; fill: #06c; }} #title {{ font-size: 16px; }}</style>\n"
        "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#f8f8f8\"/>\n"
        "<text id=\"title\" x=\"{4}\" y=\"22\" text-anchor=\"middle\">{5}</text>\n"
        "<text id=\"reset\" class=\"button\" x=\"{2}\" y=\"42\" style=\"opacity:0.3\">Reset "
        "zoom</text>\n"
        "<text id=\"search\" class=\"button\" x=\"{6}\" y=\"42\" "
        "text-anchor=\"end\">Search</text>\n"
        "<text id=\"matched\" x=\"{6}\" y=\"{7}\" text-anchor=\"end\"></text>\n"
        "<text id=\"details\" x=\"{2}\" y=\"{7}\"> </text>\n<g id=\"frames\">\n",
        kWidth, height, kMargin, kWidth - 2 * kMargin, kWidth / 2, xml_escape(title),
        kWidth - kMargin, height - 10);
    out_.buffer() += frames;
    out_.buffer() += "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n";
    out_.buffer() += kFlamegraphScript;
    out_.buffer() += "]]></script>\n</svg>\n";
    out_.flush();
  }

  OutputStream& out_;
  Weight weight_;
  std::string type_name_;
  CallTree tree_;
};

}  // namespace

ExportInfo flamegraph_export() {
  return {
      .name = "flamegraph",
      .description = "interactive SVG flame graph (zoom, search) for a browser, --weight",
      .suffix = ".svg",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<FlamegraphExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
