#include "exports/export_registry.h"

#include <stdexcept>
#include <string>

#include "exports/stack_exports.h"
#include "formats/format_registry.h"

namespace rtrace {
namespace {

// Exports that are not a trace format, one line each.
std::vector<ExportInfo> builtin_exports() {
  return {
      exporters::folded_export(), exporters::flamegraph_export(), exporters::callgraph_export(),
      exporters::massif_export(), exporters::chrome_export(),     exporters::pprof_export(),
  };
}

std::vector<ExportInfo>& table() {
  static std::vector<ExportInfo> entries = [] {
    std::vector<ExportInfo> list;
    for (const TraceFormatInfo& format : trace_formats()) {
      if (format.open_writer != nullptr) {
        list.push_back({.name = format.name,
                        .description = format.description,
                        .suffix = format.suffix,
                        .open = format.open_writer});
      }
    }
    for (const ExportInfo& info : builtin_exports()) {
      list.push_back(info);
    }
    return list;
  }();
  return entries;
}

}  // namespace

std::vector<ExportInfo> exports() {
  return table();
}

std::optional<ExportInfo> find_export(std::string_view name) {
  for (const ExportInfo& info : table()) {
    if (info.name == name) {
      return info;
    }
  }
  return std::nullopt;
}

void register_export(const ExportInfo& info) {
  if (find_export(info.name)) {
    throw std::logic_error("export registered twice: " + std::string(info.name));
  }
  table().push_back(info);
}

}  // namespace rtrace
