// Compact copies of calls, for the stages that must hold calls until the end of the trace
// (leaks, compress).
//
// A stored call is the fixed-size Call plus three ids: the function name and the argument list
// are interned strings, the backtrace an interned stack. Real traces repeat a few names and a
// few thousand stacks millions of times, so a stored call costs about 56 bytes whatever its
// backtrace depth.
#pragma once

#include <span>
#include <vector>

#include "model/backtrace_table.h"
#include "model/records.h"
#include "model/sequence_table.h"
#include "model/string_table.h"

namespace rtrace {

struct StoredCall {
  Call call;
  StringId function = 0;
  BacktraceId arguments = 0;  // an interned list of (name, value) string id pairs; 0 = none
  BacktraceId backtrace = 0;
};

class CallStore {
 public:
  StoredCall store(const CallRecord& record);

  std::span<const Frame> frames(BacktraceId backtrace) const {
    return backtraces_.frames(backtrace);
  }
  std::size_t argument_count(const StoredCall& call) const {
    return argument_lists_.at(call.arguments).size();
  }

  // Turns stored calls back into records. `for_each_call(visit)` must call visit(stored) for
  // each call, the same way each time (it runs twice). The records point into `arguments` (and
  // into this store), so both must outlive them. `with_frames` attaches each call's backtrace.
  template <typename ForEachCall>
  void expand(ForEachCall for_each_call, bool with_frames, std::vector<CallRecord>& records,
              std::vector<Argument>& arguments) const {
    records.clear();
    arguments.clear();
    // Fill the arguments first: the records take spans into the finished vector.
    for_each_call([&](const StoredCall& stored) { append_arguments(stored, arguments); });
    std::size_t next_argument = 0;
    for_each_call([&](const StoredCall& stored) {
      const std::size_t count = argument_count(stored);
      records.push_back(CallRecord{
          .call = stored.call,
          .function = strings_.view(stored.function),
          .arguments = std::span<const Argument>(arguments).subspan(next_argument, count),
          .frames = with_frames ? frames(stored.backtrace) : std::span<const Frame>{},
      });
      next_argument += count;
    });
  }

 private:
  void append_arguments(const StoredCall& stored, std::vector<Argument>& arguments) const;

  StringTable strings_;
  BacktraceTable backtraces_;
  // Argument lists: each pair of string ids packs into one word.
  SequenceTable<std::uint64_t> argument_lists_;
  std::vector<std::uint64_t> packed_;  // scratch for store()
  StringId last_function_ = strings_.intern("");
  BacktraceId last_backtrace_ = 0;  // the empty backtrace
};

}  // namespace rtrace
