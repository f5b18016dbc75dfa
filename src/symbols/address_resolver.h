// Resolves return addresses of one traced process, following its memory map as it changes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
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

  // What the answer says, with its SymbolTable::hash, for a caller that keeps it: made by the
  // thread that looked the address up when prefetch() did, so only moved here.
  DescribedAnswer take_description(AnswerKey key);

  // Looks up, on up to options.jobs threads, the return addresses among `return_addresses`
  // that no lookup has seen yet, so that their lookup() afterwards only fetches the answer.
  // First the modules' DWARF indexes are read side by side (see prepare); then the addresses
  // are taken compile unit by compile unit, in module and address order, each thread starting
  // on its own contiguous share (so mostly its own units and files) and taking over half of
  // the largest share left once done; a thread reads the files through its own handles (those
  // that read a module's index stay with the thread that read it), and also describes the
  // answers it finds (see take_description).
  void prefetch(std::span<const Address> return_addresses);

 private:
  struct Module {
    std::unique_ptr<ModuleSymbols> symbols;  // null: the file cannot be opened
    Symbol unreadable;                       // only the module for every address then
    std::string on_disk;                     // the file under the sysroot
    std::size_t number = 0;                  // order of first mention in the trace
    // The prefetch thread that read the DWARF index through `symbols` and keeps using them;
    // the others use copies[thread], opened on demand (copies[owner] is not used).
    std::size_t owner = 0;
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
  struct Region {
    Address end = 0;
    Module* module = nullptr;
    std::uint64_t bias = 0;
  };

  // The module the trace names `path`: one per distinct file (by device and inode), however many
  // spellings name it (`/lib/../lib/libc.so.6`, a symlink), so that its debug information is
  // read and its descriptors are opened once; one per path for what is not a regular file.
  Module& module(const std::string& path);
  Module& new_module(const std::string& path);
  // The region mapping `call_address`, or null.
  const Region* region_at(Address call_address) const;
  // The distinct addresses among `return_addresses` in readable modules that no lookup has seen,
  // by module and address (their parts not set yet).
  std::vector<Pending> distinct_new(std::span<const Address> return_addresses) const;
  // `pending` (from distinct_new) cut into its modules.
  static std::vector<std::span<Pending>> modules_of(std::vector<Pending>& pending);
  // Sets the parts of one module's addresses and sorts them by part and address.
  static void sort_by_part(std::span<Pending> module);
  // Sorts every module's addresses by part on up to `threads` threads, sets the modules' owners,
  // and answers some of them (from the back of a module) while others are still sorted.
  void prepare(std::vector<Pending>& pending, std::size_t threads);
  // The last piece of a module's addresses sorted by part: at most kMostPerPiece of one part.
  static std::span<Pending> last_piece(std::span<Pending> module);
  // Looks the piece's addresses up through `symbols` (null: they stay unanswered).
  static void look_up(std::span<Pending> piece, ModuleSymbols* symbols);
  // The pieces prefetch hands out: one module's unanswered addresses in one part of its debug
  // information (at most kMostPerPiece of them).
  static std::vector<std::span<Pending>> pieces_of(std::vector<Pending>& pending);
  // Where each of `threads` threads starts among `pieces`: at even shares of the addresses.
  static std::vector<std::size_t> starts_of(const std::vector<std::span<Pending>>& pieces,
                                            std::size_t threads);
  // Opens, on the calling thread, the handles the other threads may need for `pending`.
  void open_handles(const std::vector<Pending>& pending, std::size_t threads);
  // The handles thread `thread` of prefetch uses for `module`, opened now if need be.
  ModuleSymbols* handles_for(Module& module, std::size_t thread);
  // The same once open_handles() has opened them (null: the file could not be opened again);
  // opens nothing, so the prefetch threads can call it.
  static ModuleSymbols* opened_handles(const Module& module, std::size_t thread);

  ResolveOptions options_;
  DebugSearch search_;
  std::vector<std::unique_ptr<Module>> modules_;  // by Module::number
  std::unordered_map<std::string, Module*> by_path_;
  // A regular file's (device, inode) -> its module.
  std::map<std::pair<std::uint64_t, std::uint64_t>, Module*> by_file_;
  std::map<Address, Region> regions_;  // by start address, never overlapping
  Symbol unknown_;                     // outside every mapping: nothing known
  Symbol described_;                   // what describe() returns for answers from a file
};

}  // namespace rtrace::symbols
