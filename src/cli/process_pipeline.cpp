#include "cli/process_pipeline.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <string_view>

#include "filters/backtrace_depth_filter.h"
#include "filters/call_address_filter.h"
#include "filters/compress_stage.h"
#include "filters/context_filter.h"
#include "filters/index_filter.h"
#include "filters/leaks_filter.h"
#include "filters/remove_args_filter.h"
#include "filters/resource_filter.h"
#include "symbols/resolve_stage.h"

namespace rtrace::cli {
namespace {

// A mask as the original reads it (sscanf %x): hexadecimal, an optional 0x prefix.
std::uint32_t parse_mask(std::string_view option, std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
  }
  std::uint32_t mask = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), mask, 16);
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size()) {
    throw FilterOptionError(fmt::format("{}: not a hexadecimal mask: '{}'", option, text));
  }
  return mask;
}

GroupOrder group_order(const ProcessOptions& o) {
  if (!o.sort) {
    return GroupOrder::SizeAscending;
  }
  const std::optional<GroupOrder> order = parse_group_order(*o.sort);
  if (!order) {
    throw FilterOptionError(fmt::format("-s/--sort: unknown order '{}'", *o.sort));
  }
  return *order;
}

CallAddressRange call_address(const std::string& text) {
  std::optional<CallAddressRange> range = parse_call_address(text);
  if (!range) {
    throw FilterOptionError(
        fmt::format("--call-address: expected TARGET:START+SIZE (hexadecimal), got '{}'", text));
  }
  return *std::move(range);
}

}  // namespace

void check_filter_options(const ProcessOptions& o) {
  if (o.sort && !o.compress) {
    throw FilterOptionError("-s/--sort needs -c/--compress");
  }
  group_order(o);
  if (o.context_mask) {
    parse_mask("-C/--context", *o.context_mask);
  }
  if (o.resource_mask) {
    parse_mask("-R/--resource", *o.resource_mask);
  }
  if (o.call_address) {
    call_address(*o.call_address);
  }
}

template <typename Stage, typename... Args>
void FilterPipeline::prepend(Args&&... args) {
  stages_.push_back(std::make_unique<Stage>(*head_, std::forward<Args>(args)...));
  head_ = stages_.back().get();
}

FilterPipeline::FilterPipeline(const ProcessOptions& o, TraceSink& writer) : head_(&writer) {
  check_filter_options(o);
  // Built from the writer backwards: the last stage to run is prepended first.
  if (o.resolve) {
    // As the original's -r, which pipes its output through `sp-rtrace-resolve -telf`.
    symbols::ResolveOptions resolve;
    resolve.method = symbols::ResolveMethod::SymbolTable;
    stages_.push_back(symbols::make_resolve_stage(*head_, resolve));
    head_ = stages_.back().get();
  }
  if (o.compress) {
    prepend<CompressStage>(group_order(o));
  }
  if (o.leaks) {
    prepend<LeaksFilter>();
  }
  if (o.remove_args) {
    prepend<RemoveArgsFilter>();
  }
  if (o.backtrace_depth) {
    prepend<BacktraceDepthFilter>(*o.backtrace_depth);
  }
  if (o.call_address) {
    prepend<CallAddressFilter>(call_address(*o.call_address),
                               [quiet = o.quiet](std::string_view m) {
                                 if (!quiet) {
                                   fmt::print(stderr, "rtrace: warning: {}\n", m);
                                 }
                               });
  }
  if (o.exclude_file) {
    prepend<IndexFilter>(load_index_file(*o.exclude_file), IndexFilter::Mode::Exclude);
  }
  if (o.include_file) {
    prepend<IndexFilter>(load_index_file(*o.include_file), IndexFilter::Mode::Include);
  }
  if (o.resource_mask) {
    prepend<ResourceFilter>(parse_mask("-R/--resource", *o.resource_mask));
  }
  if (o.context_mask) {
    prepend<ContextFilter>(parse_mask("-C/--context", *o.context_mask));
  }
}

}  // namespace rtrace::cli
