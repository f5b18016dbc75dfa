// What a trace held that the format it is converted into cannot (TraceFormatInfo::losses). A
// forwarding sink in front of the writer notes each kind of record or field the format loses, so
// that the conversion says what it left out instead of dropping it quietly (`rtrace process --to
// compact` of an mpatrol trace, whose frames are names without addresses, kept none of them).
#pragma once

#include <cstdint>
#include <string>

#include "formats/format_registry.h"
#include "model/trace_sink.h"

namespace rtrace {

class LossWitness final : public ForwardingSink {
 public:
  // `losses`: the written format's (Loss bits). What the records held of them is added to
  // `seen`, which several witnesses (one per process of a stream) may share.
  LossWitness(TraceSink& writer, std::uint32_t losses, std::uint32_t& seen)
      : ForwardingSink(writer), losses_(losses), seen_(seen) {}

  void output_settings(const OutputSettings& settings) override;
  void symbol(SymbolId id, const Symbol& symbol) override;
  void call(const CallRecord& record) override;
  void group(const CallGroup& group) override;
  void leak_summary(const LeakSummary& summary) override;
  void heap_info(const HeapInfo& info) override;
  void trace_end(const TraceEnd& end) override;
  void note(const Note& note) override;

 private:
  void saw(Loss loss) { seen_ |= losses_ & loss; }

  std::uint32_t losses_;
  std::uint32_t& seen_;
  std::uint64_t last_index_ = 0;
};

// "the frames' function names and source lines, the calls' thread ids": what the Loss bits in
// `lost` leave out, for a warning; empty when nothing.
std::string describe_losses(std::uint32_t lost);

}  // namespace rtrace
