#include "pipeline/stage_registry.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <stdexcept>
#include <string>

#include "filters/backtrace_depth_filter.h"
#include "filters/call_address_filter.h"
#include "filters/compress_stage.h"
#include "filters/context_filter.h"
#include "filters/expand_stage.h"
#include "filters/index_filter.h"
#include "filters/leak_kinds_filter.h"
#include "filters/leaks_filter.h"
#include "filters/remove_args_filter.h"
#include "filters/resource_filter.h"
#include "filters/suppress_stage.h"
#include "formats/apitrace/object_lifetime_stage.h"
#include "symbols/resolve_stage.h"

namespace rtrace {
namespace {

// A mask as the original reads it (sscanf %x): hexadecimal, an optional 0x prefix.
std::uint32_t parse_mask(std::string_view stage, std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
  }
  std::uint32_t mask = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), mask, 16);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size()) {
    throw StageOptionError(fmt::format("{}: not a hexadecimal mask: '{}'", stage, text));
  }
  return mask;
}

std::uint32_t parse_depth(std::string_view text) {
  std::uint32_t depth = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), depth);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    throw StageOptionError(fmt::format("-b/--backtrace-depth: not a number: '{}'", text));
  }
  return depth;
}

GroupOrder group_order(std::string_view text) {
  if (text.empty()) {
    return GroupOrder::SizeAscending;
  }
  const std::optional<GroupOrder> order = parse_group_order(text);
  if (!order) {
    throw StageOptionError(fmt::format("-s/--sort: unknown order '{}'", text));
  }
  return *order;
}

CallAddressRange call_address(std::string_view text) {
  std::optional<CallAddressRange> range = parse_call_address(text);
  if (!range) {
    throw StageOptionError(
        fmt::format("--call-address: expected TARGET:START+SIZE (hexadecimal), got '{}'", text));
  }
  return *std::move(range);
}

template <typename Stage, typename... Args>
std::unique_ptr<TraceSink> make(TraceSink& next, Args&&... args) {
  return std::make_unique<Stage>(next, std::forward<Args>(args)...);
}

// One line per stage.
const auto kStages = std::to_array<StageInfo>({
    {"expand", "drop derived records (groups, leak summaries); calls back in index order",
     [](TraceSink& next, std::string_view, const StageContext&) {
       return make<ExpandStage>(next);
     }},
    {"context", "keep calls in the contexts of the hexadecimal mask (-C)",
     [](TraceSink& next, std::string_view mask, const StageContext&) {
       return make<ContextFilter>(next, parse_mask("-C/--context", mask));
     }},
    {"resource", "keep calls of the resource types of the hexadecimal mask (-R)",
     [](TraceSink& next, std::string_view mask, const StageContext&) {
       return make<ResourceFilter>(next, parse_mask("-R/--resource", mask));
     }},
    {"include", "keep only the calls whose indices the file lists",
     [](TraceSink& next, std::string_view path, const StageContext&) {
       return make<IndexFilter>(next, load_index_file(std::string(path)),
                                IndexFilter::Mode::Include);
     }},
    {"exclude", "drop the calls whose indices the file lists",
     [](TraceSink& next, std::string_view path, const StageContext&) {
       return make<IndexFilter>(next, load_index_file(std::string(path)),
                                IndexFilter::Mode::Exclude);
     }},
    {"call-address", "keep allocations made from TARGET:START+SIZE",
     [](TraceSink& next, std::string_view range, const StageContext& context) {
       return make<CallAddressFilter>(next, call_address(range),
                                      [warn = context.warn](std::string_view message) {
                                        if (warn) {
                                          warn(message);
                                        }
                                      });
     }},
    {"depth", "trim backtraces to N frames (-b)",
     [](TraceSink& next, std::string_view depth, const StageContext&) {
       return make<BacktraceDepthFilter>(next, parse_depth(depth));
     }},
    {"remove-args", "drop call arguments (-a)",
     [](TraceSink& next, std::string_view, const StageContext&) {
       return make<RemoveArgsFilter>(next);
     }},
    {"leaks", "keep only resources never released, then a leak summary (-l)",
     [](TraceSink& next, std::string_view, const StageContext&) {
       return make<LeaksFilter>(next);
     }},
    {"leak-kinds",
     "after leaks: keep the leaks of these kinds of the trace's leak check; argument: "
     "definite,indirect,possible,reachable or all (--leak-kinds)",
     [](TraceSink& next, std::string_view kinds, const StageContext&) {
       try {
         return make<LeakKindsFilter>(next, parse_leak_kinds(kinds));
       } catch (const std::invalid_argument& error) {
         throw StageOptionError(std::string("leak-kinds: ") + error.what());
       }
     }},
    {"suppress", "leave out the leaks that the leak suppressions match, and say so (-l)",
     [](TraceSink& next, std::string_view, const StageContext& context) {
       if (context.suppressions == nullptr) {
         throw StageOptionError("suppress: no suppression rules were given");
       }
       return make<SuppressStage>(next, context.suppressions);
     }},
    {"compress", "group calls by backtrace; argument: size, size-asc, count, count-asc (-c, -s)",
     [](TraceSink& next, std::string_view order, const StageContext&) {
       return make<CompressStage>(next, group_order(order));
     }},
    {"gl-objects", "GL/EGL/GLX object creations and deletions as allocations and frees",
     [](TraceSink& next, std::string_view, const StageContext&) {
       return make<apitrace::ObjectLifetimeStage>(next);
     }},
    {"resolve", "attach symbols to address frames",
     [](TraceSink& next, std::string_view, const StageContext& context) {
       return symbols::make_resolve_stage(next, context.resolve);
     }},
});

}  // namespace

std::span<const StageInfo> stages() {
  return kStages;
}

const StageInfo& find_stage(std::string_view name) {
  for (const StageInfo& stage : kStages) {
    if (stage.name == name) {
      return stage;
    }
  }
  throw StageOptionError(fmt::format("no stage called '{}'", name));
}

}  // namespace rtrace
