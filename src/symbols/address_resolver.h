// Resolves return addresses of one traced process, following its memory map as it changes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

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

 private:
  struct Module {
    std::unique_ptr<ModuleSymbols> symbols;  // null: the file cannot be opened
    Symbol unreadable;                       // only the module for every address then
  };
  struct Region {
    Address end = 0;
    Module* module = nullptr;
    std::uint64_t bias = 0;
  };

  Module& module(const std::string& path);

  ResolveOptions options_;
  DebugSearch search_;
  std::unordered_map<std::string, std::unique_ptr<Module>> modules_;
  std::map<Address, Region> regions_;  // by start address, never overlapping
  Symbol unknown_;                     // outside every mapping: nothing known
  Symbol described_;                   // what describe() returns for answers from a file
};

}  // namespace rtrace::symbols
