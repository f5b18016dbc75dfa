// Holds the calls of a compressed text trace until its end and then delivers them in index order.
//
// A compressed trace (`filter=...compress...`) lists calls grouped by backtrace, groups sorted by
// size; read back without -c, the original prints one record per call in index order. That needs
// the whole trace, so the calls are kept compactly: function names and backtraces interned,
// argument text in one arena.
#pragma once

#include <string>
#include <vector>

#include "model/backtrace_table.h"
#include "model/string_table.h"
#include "pipeline/trace_sink.h"

namespace rtrace::sprtrace_text {

class IndexOrderBuffer {
 public:
  void add(const CallRecord& record);
  // Delivers every call held, in index order (calls with equal indices in arrival order), and
  // forgets them.
  void deliver(TraceSink& sink);
  bool empty() const { return calls_.empty(); }

 private:
  struct HeldCall {
    Call call;
    StringId function = 0;
    BacktraceId backtrace = 0;
    std::size_t arguments_begin = 0;  // index into arguments_
    std::size_t argument_count = 0;
  };
  struct HeldArgument {
    std::size_t name_begin = 0;  // into argument_text_
    std::size_t name_size = 0;
    std::size_t value_size = 0;  // the value follows the name
  };

  StringTable functions_;
  BacktraceTable backtraces_;
  std::vector<HeldCall> calls_;
  std::vector<HeldArgument> arguments_;
  std::string argument_text_;
};

}  // namespace rtrace::sprtrace_text
