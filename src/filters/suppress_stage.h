// The leak suppressions applied to the leaks stage's output (rtrace process -l): a leaked
// allocation whose backtrace matches a rule (suppression_rules.h) is left out, its type's leak
// summary is lessened by it, and a note before the summaries says how many blocks and bytes the
// rules suppressed, so that nothing is hidden silently.
//
// The rules match what the trace knows at this point: the module of each frame from the memory
// maps, and function names and source files only where the trace carries them (a resolved text
// trace, or `rtrace process -l -r`... whose resolution comes after this stage: an unresolved
// trace is matched by modules alone).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "filters/suppression_rules.h"
#include "model/trace_sink.h"

namespace rtrace {

class SuppressStage final : public ForwardingSink {
 public:
  SuppressStage(TraceSink& next, std::shared_ptr<const SuppressionRules> rules)
      : ForwardingSink(next), rules_(std::move(rules)) {}

  void mapping(const Mapping& mapping) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void leak_summary(const LeakSummary& summary) override;
  void finish() override;

 private:
  struct Suppressed {
    std::uint64_t blocks = 0;
    std::uint64_t bytes = 0;
  };

  std::optional<std::size_t> match(const CallRecord& record) const;
  void note_totals();

  std::shared_ptr<const SuppressionRules> rules_;
  std::vector<Mapping> mappings_;
  std::unordered_map<SymbolId, Symbol> symbols_;
  std::unordered_map<std::uint32_t, Suppressed> by_type_;  // by resource type id
  std::vector<Suppressed> by_rule_;                        // parallel to the rules
  Suppressed total_;
  bool noted_ = false;
};

}  // namespace rtrace
