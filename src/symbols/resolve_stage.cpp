#include "symbols/resolve_stage.h"

#include <span>
#include <unordered_map>
#include <unordered_set>

#include "symbols/address_resolver.h"

namespace rtrace::symbols {
namespace {

class ResolveStage final : public ForwardingSink {
 public:
  ResolveStage(TraceSink& next, const ResolveOptions& options)
      : ForwardingSink(next), keep_resolved_(options.keep_resolved), resolver_(options) {}

  void handshake(const Handshake& handshake) override {
    Handshake resolved = handshake;
    resolved.filters.resolve = true;
    next().handshake(resolved);
  }

  void mapping(const Mapping& mapping) override {
    resolver_.add_mapping(mapping);
    next().mapping(mapping);
  }

  // Names that came with the input are kept only when asked; otherwise every frame is resolved
  // again from the files (as the original resolver does without -k).
  void symbol(Address address, const SymbolInfo& symbol) override {
    if (!keep_resolved_) {
      return;
    }
    kept_.insert(address);
    next().symbol(address, symbol);
  }

  void call(const CallRecord& record) override {
    announce(record.frames);
    next().call(record);
  }

  void call_group(const CallGroup& group) override {
    for (const CallRecord& record : group.calls) {
      announce(record.frames);
    }
    announce(group.frames);
    next().call_group(group);
  }

 private:
  void announce(std::span<const Address> frames) {
    for (const Address address : frames) {
      if (!kept_.empty() && kept_.contains(address)) {
        continue;
      }
      const AddressResolver::AnswerKey answer = resolver_.lookup(address);
      auto [said, first_time] = announced_.try_emplace(address, answer);
      if (!first_time && said->second == answer) {
        continue;
      }
      said->second = answer;
      next().symbol(address, resolver_.describe(answer));
    }
  }

  bool keep_resolved_;
  AddressResolver resolver_;
  std::unordered_set<Address> kept_;
  // The answer last sent for each address.
  std::unordered_map<Address, AddressResolver::AnswerKey> announced_;
};

}  // namespace

std::unique_ptr<TraceSink> make_resolve_stage(TraceSink& next, const ResolveOptions& options) {
  return std::make_unique<ResolveStage>(next, options);
}

}  // namespace rtrace::symbols
