// A sink that splits a stream holding several processes into one trace per process: every
// process gets its own branch (typically stages and a writer, opened on demand), which receives
// the stream's shared records (header, modules, contexts, resource types, symbols, mappings of
// every process) and then only that process's records.
//
// Routing: process records and calls by their pid, mappings with a pid to that process; calls
// with pid 0 ("the stream's only process") to the first process seen; records without a pid of
// their own (groups, leak summaries, heap information, attachments, notes) to the branch of the
// record before them. A stream with one process streams through to a single branch. Shared
// records are kept to be replayed into branches opened later, so memory follows them (symbols,
// registries), never the calls.
//
// Every branch holds an output (a file descriptor and its buffer) and its own stages, so the
// number of processes is bounded: the pids come from the input, and a stream naming a new pid in
// every record must not open a file per record. Past kMaxProcesses, TooManyProcesses is thrown;
// the branches opened so far are whole up to that record.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "model/trace_sink.h"

namespace rtrace {

class TooManyProcesses : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PidSplit final : public TraceSink {
 public:
  // The most processes one input may hold: far more than a real trace (a StackTrack file, a
  // merged trace of a program and its children), well under the usual limit of 1024 descriptors.
  static constexpr std::size_t kMaxProcesses = 512;

  // Returns the sink of a new branch for `pid` (0 when the stream names no process); the sink
  // must live until finish() returns.
  using OpenBranch = std::function<TraceSink&(std::uint32_t pid)>;

  explicit PidSplit(OpenBranch open) : open_(std::move(open)) {}

  void header(const TraceHeader& header) override;
  void process(const ProcessInfo& info) override;
  void output_settings(const OutputSettings& settings) override;
  void module(const ModuleInfo& module) override;
  void mapping(const Mapping& mapping) override;
  void context(const ContextInfo& context) override;
  void resource_type(const ResourceType& type) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void group(const CallGroup& group) override { current().group(group); }
  void leak_summary(const LeakSummary& summary) override { current().leak_summary(summary); }
  void heap_info(const HeapInfo& info) override { current().heap_info(info); }
  void trace_end(const TraceEnd& end) override {
    branch(end.pid != 0 ? end.pid : first_pid_.value_or(0)).trace_end(end);
  }
  void leak_kinds(const LeakKinds& kinds) override {
    branch(kinds.pid != 0 ? kinds.pid : first_pid_.value_or(0)).leak_kinds(kinds);
  }
  void attachment(const Attachment& attachment) override { current().attachment(attachment); }
  void note(const Note& note) override { current().note(note); }
  void finish() override;

 private:
  // The shared records, in arrival order, to replay into a new branch.
  struct Shared {
    std::optional<TraceHeader> header;
    std::optional<OutputSettings> output_settings;
    std::vector<ModuleInfo> modules;
    std::vector<ContextInfo> contexts;
    std::vector<ResourceType> types;
    std::vector<std::pair<SymbolId, Symbol>> symbols;
    std::vector<Mapping> mappings;
  };

  // The branch of `pid`; the one of the record before is the usual answer, inline.
  TraceSink& branch(std::uint32_t pid) {
    return current_ != nullptr && current_pid_ == pid ? *current_ : switch_branch(pid);
  }
  TraceSink& switch_branch(std::uint32_t pid);
  TraceSink& current();
  template <typename Deliver>
  void to_every_branch(Deliver deliver) {
    for (TraceSink* sink : order_) {
      deliver(*sink);
    }
  }

  OpenBranch open_;
  Shared shared_;
  std::unordered_map<std::uint32_t, TraceSink*> branches_;
  std::vector<TraceSink*> order_;  // branches in order of their first record
  std::optional<std::uint32_t> first_pid_;
  TraceSink* current_ = nullptr;
  std::uint32_t current_pid_ = 0;
};

}  // namespace rtrace
