// Resolves return addresses of one traced process, following its memory map as it changes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/records.h"
#include "symbols/module_symbols.h"
#include "symbols/resolve_options.h"

namespace rtrace::symbols {

class AddressResolver {
 public:
  explicit AddressResolver(ResolveOptions options);
  ~AddressResolver();
  AddressResolver(const AddressResolver&) = delete;
  AddressResolver& operator=(const AddressResolver&) = delete;

  // An executable mapping takes effect for every address resolved after it, replacing whatever
  // was mapped over the same range before (dlclose, then dlopen of another library).
  void add_mapping(const Mapping& mapping);

  // Identifies an answer: equal keys mean equal answers (the same file and address, or the
  // same unknown or unreadable place).
  struct AnswerKey {
    const void* source = nullptr;
    std::uint32_t index = 0;
    friend bool operator==(const AnswerKey&, const AnswerKey&) = default;
  };

  // The answer for the backtrace entry `return_address`: names and lines are those of the
  // call instruction (the address minus one). Each distinct address is looked up once.
  AnswerKey lookup(Address return_address);

  // What the answer says. The reference is valid until the next describe() or resolve().
  const Symbol& describe(AnswerKey key);

  const Symbol& resolve(Address return_address) { return describe(lookup(return_address)); }

  // Looks up, on up to options.jobs threads, the return addresses among `return_addresses`
  // that no lookup has seen yet, so that their lookup() afterwards only fetches the answer.
  // Each thread takes a contiguous share of the distinct addresses in module and address order
  // (so mostly its own compile units) and reads the files through its own handles.
  void prefetch(std::span<const Address> return_addresses);

 private:
  struct Module {
    std::unique_ptr<ModuleSymbols> symbols;  // null: the file cannot be opened
    Symbol unreadable;                       // only the module for every address then
    std::string on_disk;                     // the file under the sysroot
    std::size_t number = 0;                  // order of first mention in the trace
    // Handles for prefetch's other threads (thread i > 0 uses copies[i - 1]), opened on demand.
    std::vector<std::unique_ptr<ModuleSymbols>> copies;
    // Answers found by prefetch, by module address (the call instruction's).
    std::unordered_map<std::uint64_t, AnswerKey> prefetched;
  };
  // One distinct address for prefetch: where it belongs and, once looked up, its answer.
  struct Pending {
    Module* module = nullptr;
    std::uint64_t address = 0;  // module address of the call instruction
    std::size_t part = 0;       // ModuleSymbols::part_of(address)
    AnswerKey answer;
  };
  // A contiguous piece of one module's pending addresses and the handles that look them up.
  struct Share {
    std::span<Pending> addresses;
    ModuleSymbols* symbols = nullptr;  // null: the file could not be opened again
  };
  struct Region {
    Address end = 0;
    Module* module = nullptr;
    std::uint64_t bias = 0;
  };

  Module& module(const std::string& path);
  // The region mapping `call_address`, or null.
  const Region* region_at(Address call_address) const;
  // The distinct addresses among `return_addresses` in readable modules that no lookup has seen,
  // by module and address.
  std::vector<Pending> distinct_new(std::span<const Address> return_addresses) const;
  // What each of `threads` threads looks up.
  std::vector<std::vector<Share>> share_out(std::vector<Pending>& pending, std::size_t threads);
  // The handles thread `thread` of prefetch uses for `module`.
  ModuleSymbols* handles_for(Module& module, unsigned thread);

  ResolveOptions options_;
  DebugSearch search_;
  std::unordered_map<std::string, std::unique_ptr<Module>> modules_;
  std::map<Address, Region> regions_;  // by start address, never overlapping
  Symbol unknown_;                     // outside every mapping: nothing known
  Symbol described_;                   // what describe() returns for answers from a file
};

}  // namespace rtrace::symbols
