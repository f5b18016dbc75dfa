#include "pipeline/pid_split.h"

#include <fmt/format.h>

namespace rtrace {

void PidSplit::header(const TraceHeader& header) {
  shared_.header = header;
  to_every_branch([&](TraceSink& sink) { sink.header(header); });
}

void PidSplit::output_settings(const OutputSettings& settings) {
  shared_.output_settings = settings;
  to_every_branch([&](TraceSink& sink) { sink.output_settings(settings); });
}

void PidSplit::module(const ModuleInfo& module) {
  shared_.modules.push_back(module);
  to_every_branch([&](TraceSink& sink) { sink.module(module); });
}

void PidSplit::context(const ContextInfo& context) {
  shared_.contexts.push_back(context);
  to_every_branch([&](TraceSink& sink) { sink.context(context); });
}

void PidSplit::resource_type(const ResourceType& type) {
  shared_.types.push_back(type);
  to_every_branch([&](TraceSink& sink) { sink.resource_type(type); });
}

void PidSplit::symbol(SymbolId id, const Symbol& symbol) {
  shared_.symbols.emplace_back(id, symbol);
  to_every_branch([&](TraceSink& sink) { sink.symbol(id, symbol); });
}

void PidSplit::mapping(const Mapping& mapping) {
  if (mapping.pid != 0) {
    branch(mapping.pid).mapping(mapping);
    return;
  }
  shared_.mappings.push_back(mapping);
  to_every_branch([&](TraceSink& sink) { sink.mapping(mapping); });
}

void PidSplit::process(const ProcessInfo& info) {
  if (!first_pid_) {
    first_pid_ = info.pid;
  }
  branch(info.pid).process(info);
}

void PidSplit::call(const CallRecord& record) {
  const std::uint32_t pid = record.call.pid != 0 ? record.call.pid : first_pid_.value_or(0);
  branch(pid).call(record);
}

void PidSplit::finish() {
  if (order_.empty()) {
    branch(first_pid_.value_or(0));  // an empty trace is still one (empty) trace
  }
  to_every_branch([](TraceSink& sink) { sink.finish(); });
}

TraceSink& PidSplit::current() {
  return current_ != nullptr ? *current_ : branch(first_pid_.value_or(0));
}

TraceSink& PidSplit::switch_branch(std::uint32_t pid) {
  if (!branches_.contains(pid) && branches_.size() == kMaxProcesses) {
    throw TooManyProcesses(fmt::format(
        "more than {} processes in one trace (the most rtrace process splits an input into): "
        "process {} and what follows are not written",
        kMaxProcesses, pid));
  }
  auto [found, added] = branches_.try_emplace(pid, nullptr);
  if (added) {
    TraceSink& sink = open_(pid);
    found->second = &sink;
    order_.push_back(&sink);
    if (shared_.header) {
      sink.header(*shared_.header);
    }
    if (shared_.output_settings) {
      sink.output_settings(*shared_.output_settings);
    }
    for (const ModuleInfo& module : shared_.modules) {
      sink.module(module);
    }
    for (const ContextInfo& context : shared_.contexts) {
      sink.context(context);
    }
    for (const ResourceType& type : shared_.types) {
      sink.resource_type(type);
    }
    for (const auto& [id, symbol] : shared_.symbols) {
      sink.symbol(id, symbol);
    }
    for (const Mapping& mapping : shared_.mappings) {
      sink.mapping(mapping);
    }
  }
  current_ = found->second;
  current_pid_ = pid;
  return *current_;
}

}  // namespace rtrace
