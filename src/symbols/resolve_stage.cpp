#include "symbols/resolve_stage.h"

#include <span>
#include <unordered_map>
#include <vector>

#include "symbols/address_resolver.h"

namespace rtrace::symbols {
namespace {

class ResolveStage final : public ForwardingSink {
 public:
  ResolveStage(TraceSink& next, const ResolveOptions& options)
      : ForwardingSink(next), keep_resolved_(options.keep_resolved), resolver_(options) {}

  void header(const TraceHeader& header) override {
    TraceHeader resolved = header;
    resolved.applied.resolve = true;
    next().header(resolved);
  }

  void mapping(const Mapping& mapping) override {
    resolver_.add_mapping(mapping);
    next().mapping(mapping);
  }

  // Symbols that came with the input are renumbered into this stage's table (its ids are the
  // ones downstream sees); they are used only when asked to keep them, or for frames that have
  // no address to resolve (mpatrol, apitrace).
  void symbol(SymbolId id, const Symbol& symbol) override {
    if (id >= incoming_.size()) {
      if (id > kMaxIncomingId) {
        return;
      }
      incoming_.resize(id + 1, kNoSymbol);
    }
    incoming_[id] = own_id(symbol);
  }

  void call(const CallRecord& record) override {
    frames_.assign(record.frames.begin(), record.frames.end());
    for (Frame& frame : frames_) {
      frame.symbol = symbol_for(frame);
    }
    CallRecord resolved = record;
    resolved.frames = frames_;
    next().call(resolved);
  }

 private:
  static constexpr SymbolId kMaxIncomingId = 1U << 26;

  SymbolId own_id(const Symbol& symbol) {
    const SymbolTable::Interned interned = table_.intern(symbol);
    if (interned.added) {
      next().symbol(interned.id, symbol);
    }
    return interned.id;
  }

  SymbolId incoming(SymbolId id) const { return id < incoming_.size() ? incoming_[id] : kNoSymbol; }

  SymbolId symbol_for(const Frame& frame) {
    const bool has_name = frame.symbol != kNoSymbol;
    if (has_name && (keep_resolved_ || frame.address == 0)) {
      return incoming(frame.symbol);
    }
    const AddressResolver::AnswerKey answer = resolver_.lookup(frame.address);
    auto [known, first_time] = answers_.try_emplace(answer, kNoSymbol);
    if (first_time) {
      known->second = own_id(resolver_.describe(answer));
    }
    return known->second;
  }

  struct AnswerHash {
    std::size_t operator()(const AddressResolver::AnswerKey& key) const {
      return std::hash<const void*>()(key.source) * 31 + key.index;
    }
  };

  bool keep_resolved_;
  AddressResolver resolver_;
  SymbolTable table_;
  std::vector<SymbolId> incoming_;  // input's id -> our id
  std::unordered_map<AddressResolver::AnswerKey, SymbolId, AnswerHash> answers_;
  std::vector<Frame> frames_;  // scratch
};

}  // namespace

std::unique_ptr<TraceSink> make_resolve_stage(TraceSink& next, const ResolveOptions& options) {
  return std::make_unique<ResolveStage>(next, options);
}

}  // namespace rtrace::symbols
