#include "formats/loss_witness.h"

#include <array>
#include <utility>

namespace rtrace {

void LossWitness::output_settings(const OutputSettings& settings) {
  saw(kLosesOutputSettings);
  ForwardingSink::output_settings(settings);
}

void LossWitness::symbol(SymbolId id, const Symbol& symbol) {
  if (!symbol.unknown()) {
    saw(kLosesSymbols);
  }
  ForwardingSink::symbol(id, symbol);
}

void LossWitness::call(const CallRecord& record) {
  const Call& call = record.call;
  if (call.thread != 0) {
    saw(kLosesThreads);
  }
  if (call.timestamp_ns % 1'000'000 != 0) {
    saw(kLosesSubmilliseconds);
  }
  if (call.kind == CallKind::Enter || call.kind == CallKind::Exit) {
    saw(kLosesScopes);
  }
  // Numbered by their place in the file, calls keep their numbers only when these count from 1.
  if (call.index != last_index_ + 1) {
    saw(kLosesCallIndices);
  }
  last_index_ = call.index;
  ForwardingSink::call(record);
}

void LossWitness::group(const CallGroup& group) {
  saw(kLosesGroupsAndSummaries);
  ForwardingSink::group(group);
}

void LossWitness::leak_summary(const LeakSummary& summary) {
  saw(kLosesGroupsAndSummaries);
  ForwardingSink::leak_summary(summary);
}

void LossWitness::heap_info(const HeapInfo& info) {
  if (info.lowest_block != 0 || info.highest_block != 0) {
    saw(kLosesHeapBlockRange);
  }
  ForwardingSink::heap_info(info);
}

void LossWitness::trace_end(const TraceEnd& end) {
  if (end.time != TimeOfDay{}) {
    saw(kLosesEndTime);
  }
  ForwardingSink::trace_end(end);
}

void LossWitness::note(const Note& note) {
  if (!note.text.empty()) {
    saw(kLosesNotes);
  }
  ForwardingSink::note(note);
}

std::string describe_losses(std::uint32_t lost) {
  static constexpr std::array<std::pair<Loss, const char*>, 10> kDescriptions = {{
      {kLosesSymbols, "the frames' function names and source lines (addresses only)"},
      {kLosesThreads, "the calls' thread ids"},
      {kLosesCallIndices, "the calls' numbers (renumbered by their place)"},
      {kLosesSubmilliseconds, "the timestamps' fractions of a millisecond"},
      {kLosesScopes, "the enter and exit calls (written as other calls)"},
      {kLosesGroupsAndSummaries, "the call groups and leak summaries (-c and -l make them again)"},
      {kLosesNotes, "the notes"},
      {kLosesHeapBlockRange, "the heap's lowest and highest block"},
      {kLosesEndTime, "the trace end's wall-clock time"},
      {kLosesOutputSettings, "the recorder's output settings"},
  }};
  std::string text;
  for (const auto& [loss, description] : kDescriptions) {
    if ((lost & loss) != 0) {
      text += text.empty() ? "" : "; ";
      text += description;
    }
  }
  return text;
}

}  // namespace rtrace
