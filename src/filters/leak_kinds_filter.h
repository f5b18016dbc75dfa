// --leak-kinds (rtrace process -l): keeps the leaked blocks of the selected leak kinds, as
// valgrind's --show-leak-kinds selects the loss records it shows. The kinds come from the
// trace's leak check (LeakKinds records, rtrace record --leak-check), which the leaks stage
// passes on before the calls it keeps; this stage runs after it. An allocation of a block the
// check classified goes on only when its kind is selected, and the leak summary of its type
// then counts only what went on. Blocks the check did not classify, and every call of a trace
// without a check ("kinds unknown"), go on as they are.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>

#include "model/trace_sink.h"

namespace rtrace {

// Kinds selected, by LeakKind value.
using LeakKindSelection = std::array<bool, 5>;

// "definite,indirect,possible,reachable" (any of them, comma-separated) or "all"; throws
// std::invalid_argument naming the word it does not know.
LeakKindSelection parse_leak_kinds(std::string_view text);

class LeakKindsFilter final : public ForwardingSink {
 public:
  LeakKindsFilter(TraceSink& next, LeakKindSelection selected)
      : ForwardingSink(next), selected_(selected) {}

  void leak_kinds(const LeakKinds& kinds) override;
  void call(const CallRecord& record) override;
  void leak_summary(const LeakSummary& summary) override;

 private:
  struct Dropped {
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
  };

  LeakKindSelection selected_;
  // By pid, then by block address.
  std::unordered_map<std::uint32_t, std::unordered_map<std::uint64_t, LeakKind>> kinds_;
  std::map<std::uint32_t, Dropped> dropped_;  // by resource type
};

}  // namespace rtrace
