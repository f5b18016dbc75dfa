#include "symbols/resolve_stage.h"

#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbols/address_resolver.h"
#include "symbols/call_batch.h"

namespace rtrace::symbols {
namespace {

class ResolveStage final : public ForwardingSink {
 public:
  ResolveStage(TraceSink& next, const ResolveOptions& options)
      : ForwardingSink(next),
        keep_resolved_(options.keep_resolved),
        batched_(options.jobs > 1),
        resolver_(options) {}

  void header(const TraceHeader& header) override {
    flush();
    TraceHeader resolved = header;
    resolved.applied.resolve = true;
    next().header(resolved);
  }

  void mapping(const Mapping& mapping) override {
    flush();
    resolver_.add_mapping(mapping);
    next().mapping(mapping);
  }

  // Held calls go out before any other record, so the order downstream is the input's.
  void process(const ProcessInfo& info) override {
    flush();
    next().process(info);
  }
  void output_settings(const OutputSettings& settings) override {
    flush();
    next().output_settings(settings);
  }
  void module(const ModuleInfo& module) override {
    flush();
    next().module(module);
  }
  void context(const ContextInfo& context) override {
    flush();
    next().context(context);
  }
  void resource_type(const ResourceType& type) override {
    flush();
    next().resource_type(type);
  }
  void group(const CallGroup& group) override {
    flush();
    next().group(group);
  }
  void leak_summary(const LeakSummary& summary) override {
    flush();
    next().leak_summary(summary);
  }
  void heap_info(const HeapInfo& info) override {
    flush();
    next().heap_info(info);
  }
  void trace_end(const TraceEnd& end) override {
    flush();
    next().trace_end(end);
  }
  void leak_kinds(const LeakKinds& kinds) override {
    flush();
    next().leak_kinds(kinds);
  }
  void attachment(const Attachment& attachment) override {
    flush();
    next().attachment(attachment);
  }
  void note(const Note& note) override {
    flush();
    next().note(note);
  }
  void finish() override {
    flush();
    next().finish();
  }

  // Symbols that came with the input are renumbered into this stage's table (its ids are the
  // ones downstream sees); they are used only when asked to keep them, or for frames that have
  // no address to resolve (mpatrol, apitrace).
  void symbol(SymbolId id, const Symbol& symbol) override {
    flush();
    if (id >= incoming_.size()) {
      if (id > kMaxIncomingId) {
        return;
      }
      incoming_.resize(id + 1, kNoSymbol);
    }
    incoming_[id] = own_id(symbol);
  }

  // With several threads, calls are held until a batch of frames is complete, whose distinct
  // addresses are then looked up at once; the calls then go out in their order, as without.
  void call(const CallRecord& record) override {
    if (!batched_) {
      forward(record);
      return;
    }
    batch_.add(record);
    if (batch_.frame_count() >= kBatchFrames || batch_.call_count() >= kBatchCalls ||
        batch_.text_size() >= kBatchText) {
      flush();
    }
  }

 private:
  static constexpr SymbolId kMaxIncomingId = 1U << 26;
  // Frames per batch: enough distinct addresses to share among the threads, little memory
  // (16 bytes a frame, plus the calls' names and arguments).
  static constexpr std::size_t kBatchFrames = 1U << 18;
  // Calls without frames, or with long arguments, must not make a batch grow without bound.
  static constexpr std::size_t kBatchCalls = 1U << 16;
  static constexpr std::size_t kBatchText = 16U << 20;

  void flush() {
    if (batch_.empty()) {
      return;
    }
    addresses_.clear();
    for (const Frame& frame : batch_.frames()) {
      if (!keeps_symbol(frame)) {
        addresses_.push_back(frame.address);
      }
    }
    resolver_.prefetch(addresses_);
    batch_.for_each([&](const CallRecord& record) { forward(record); });
    batch_.clear();
  }

  void forward(const CallRecord& record) {
    frames_.assign(record.frames.begin(), record.frames.end());
    for (Frame& frame : frames_) {
      frame.symbol = symbol_for(frame);
    }
    CallRecord resolved = record;
    resolved.frames = frames_;
    next().call(resolved);
  }

  SymbolId own_id(const Symbol& symbol) {
    const SymbolTable::Interned interned = table_.intern(symbol);
    if (interned.added) {
      next().symbol(interned.id, symbol);
    }
    return interned.id;
  }

  SymbolId incoming(SymbolId id) const { return id < incoming_.size() ? incoming_[id] : kNoSymbol; }

  // Whether the frame keeps the symbol it came with instead of being looked up.
  bool keeps_symbol(const Frame& frame) const {
    return frame.symbol != kNoSymbol && (keep_resolved_ || frame.address == 0);
  }

  SymbolId symbol_for(const Frame& frame) {
    if (keeps_symbol(frame)) {
      return incoming(frame.symbol);
    }
    const AddressResolver::AnswerKey answer = resolver_.lookup(frame.address);
    SymbolId& known = known_symbol(answer);
    if (known == kNoSymbol) {
      known = own_id(resolver_.take_description(answer));
    }
    return known;
  }

  // Where the id of `answer`'s symbol is kept (kNoSymbol: not described yet). A source numbers
  // its answers from 0 without gaps, so each source's ids are a vector, read without hashing
  // (this runs for every frame). Slot = number + 1, so that the one answer of an unreadable
  // module (number 0xffffffff) wraps around to slot 0.
  SymbolId& known_symbol(const AddressResolver::AnswerKey& answer) {
    if (known_ == nullptr || answer.source != known_source_) {
      known_source_ = answer.source;
      known_ = &known_by_source_[answer.source];
    }
    const std::uint32_t slot = answer.index + 1U;
    if (slot >= known_->size()) {
      known_->resize(std::size_t{slot} + 1, kNoSymbol);
    }
    return (*known_)[slot];
  }

  // An answer's symbol, interned by the hash the resolver made with it.
  SymbolId own_id(DescribedAnswer&& described) {
    const SymbolTable::Interned interned =
        table_.intern(described.hash, std::move(described.symbol));
    if (interned.added) {
      next().symbol(interned.id, table_.at(interned.id));
    }
    return interned.id;
  }

  bool keep_resolved_;
  bool batched_;  // several threads: calls are held in batch_
  AddressResolver resolver_;
  CallBatch batch_;
  std::vector<Address> addresses_;  // scratch for flush()
  SymbolTable table_;
  std::vector<SymbolId> incoming_;  // input's id -> our id
  // By answer source, then slot (known_symbol): our symbol id of each answer described so far.
  std::unordered_map<const void*, std::vector<SymbolId>> known_by_source_;
  const void* known_source_ = nullptr;      // the source of the last answer...
  std::vector<SymbolId>* known_ = nullptr;  // ... and its ids (map values do not move)
  std::vector<Frame> frames_;               // scratch
};

}  // namespace

std::unique_ptr<TraceSink> make_resolve_stage(TraceSink& next, const ResolveOptions& options) {
  return std::make_unique<ResolveStage>(next, options);
}

}  // namespace rtrace::symbols
