#include "symbols/address_resolver.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <iterator>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "symbols/work_ranges.h"

namespace rtrace::symbols {

AddressResolver::AddressResolver(ResolveOptions options)
    : options_(std::move(options)), search_(options_.root) {}

AddressResolver::~AddressResolver() = default;

AddressResolver::Module& AddressResolver::module(const std::string& path) {
  Module*& slot = by_path_[path];
  if (slot != nullptr) {
    return *slot;
  }
  // Pseudo files such as [vdso] are not on disk; only absolute paths are looked up, and only
  // regular files (a trace naming a FIFO or a device must not make us block or read forever).
  struct stat file {};
  const std::string on_disk = options_.root + path;
  if (!path.starts_with('/') || ::stat(on_disk.c_str(), &file) != 0 || !S_ISREG(file.st_mode)) {
    slot = &new_module(path);
    return *slot;
  }
  Module*& same_file = by_file_[{file.st_dev, file.st_ino}];
  if (same_file == nullptr) {
    same_file = &new_module(path);
    same_file->symbols = ModuleSymbols::open(on_disk, path, search_, options_);
  }
  slot = same_file;
  return *slot;
}

AddressResolver::Module& AddressResolver::new_module(const std::string& path) {
  auto module = std::make_unique<Module>();
  module->unreadable.module = path;
  module->on_disk = options_.root + path;
  module->number = modules_.size();
  modules_.push_back(std::move(module));
  return *modules_.back();
}

void AddressResolver::add_mapping(const Mapping& mapping) {
  if (mapping.from >= mapping.to) {
    return;
  }
  // Drop every region the new mapping overlaps, then keep the parts that stick out of it.
  auto first = regions_.upper_bound(mapping.from);
  if (first != regions_.begin() && std::prev(first)->second.end > mapping.from) {
    --first;
  }
  auto last = first;
  std::map<Address, Region> kept;
  while (last != regions_.end() && last->first < mapping.to) {
    if (last->first < mapping.from) {
      kept.emplace(last->first, Region{mapping.from, last->second.module, last->second.bias});
    }
    if (last->second.end > mapping.to) {
      kept.emplace(mapping.to, last->second);
    }
    ++last;
  }
  regions_.erase(first, last);
  regions_.merge(kept);

  Module& owner = module(mapping.path);
  const std::uint64_t bias = owner.symbols ? owner.symbols->load_bias(mapping.from) : 0;
  regions_.emplace(mapping.from, Region{mapping.to, &owner, bias});
}

namespace {
// AnswerKey::index of a module that cannot be read: one answer for all its addresses.
constexpr std::uint32_t kUnreadable = 0xffffffff;
}  // namespace

const AddressResolver::Region* AddressResolver::region_at(Address call_address) const {
  auto after = regions_.upper_bound(call_address);
  if (after == regions_.begin()) {
    return nullptr;
  }
  const Region& region = std::prev(after)->second;
  return call_address < region.end ? &region : nullptr;
}

AddressResolver::AnswerKey AddressResolver::lookup(Address return_address) {
  if (return_address == 0) {
    return {};
  }
  const Address call_address = return_address - 1;
  const Region* region = region_at(call_address);
  if (region == nullptr) {
    return {};
  }
  if (!region->module->symbols) {
    return {region->module, kUnreadable};
  }
  Module& module = *region->module;
  const std::uint64_t address = call_address - region->bias;
  if (!module.prefetched.empty()) {
    if (auto found = module.prefetched.find(address); found != module.prefetched.end()) {
      return found->second;
    }
  }
  return {module.symbols.get(), module.symbols->lookup(address)};
}

namespace {
// Fewer distinct addresses than this per thread are looked up on the calling thread: starting
// a thread and reading a file's tables once more would cost more than they save.
constexpr std::size_t kFewestPerThread = 256;
}  // namespace

namespace {

// Runs run(thread) for thread = 0 .. threads - 1, thread 0 on the calling thread, the others on
// threads of their own, and rethrows the first failure once all have ended. When no thread can
// be started, fewer run: each run must take work until none is left, not a fixed share.
template <typename Run>
void run_on_threads(std::size_t threads, Run&& run) {
  std::vector<std::exception_ptr> failures(threads);
  const auto guarded = [&](std::size_t thread) {
    try {
      run(thread);
    } catch (...) {
      failures[thread] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  for (std::size_t thread = 1; thread < threads; ++thread) {
    try {
      workers.emplace_back(guarded, thread);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the others take its share over
    }
  }
  guarded(0);
  for (std::thread& worker : workers) {
    worker.join();
  }
  for (const std::exception_ptr& failure : failures) {
    if (failure) {
      std::rethrow_exception(failure);
    }
  }
}

}  // namespace

std::vector<AddressResolver::Pending> AddressResolver::distinct_new(
    std::span<const Address> return_addresses) const {
  std::vector<Pending> pending;
  for (const Address return_address : return_addresses) {
    const Region* region = return_address != 0 ? region_at(return_address - 1) : nullptr;
    if (region == nullptr || !region->module->symbols) {
      continue;
    }
    Module& module = *region->module;
    const std::uint64_t address = return_address - 1 - region->bias;
    if (!module.prefetched.contains(address) && !module.symbols->looked_up(address)) {
      pending.push_back({&module, address, 0, {}});
    }
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return a.module != b.module ? a.module->number < b.module->number : a.address < b.address;
  });
  pending.erase(std::unique(pending.begin(), pending.end(),
                            [](const Pending& a, const Pending& b) {
                              return a.module == b.module && a.address == b.address;
                            }),
                pending.end());
  return pending;
}

namespace {
// Pieces small enough that a thread left without work can take half of another's.
constexpr std::size_t kMostPerPiece = 512;
}  // namespace

std::vector<std::span<AddressResolver::Pending>> AddressResolver::modules_of(
    std::vector<Pending>& pending) {
  std::vector<std::span<Pending>> modules;
  for (auto first = pending.begin(); first != pending.end();) {
    const auto last = std::find_if(
        first, pending.end(), [&](const Pending& entry) { return entry.module != first->module; });
    modules.emplace_back(&*first, static_cast<std::size_t>(last - first));
    first = last;
  }
  return modules;
}

// Finding an address's part reads the module's DWARF index (for libc, inflating its compressed
// debug file).
void AddressResolver::sort_by_part(std::span<Pending> module) {
  ModuleSymbols& symbols = *module.front().module->symbols;
  for (Pending& entry : module) {
    entry.part = symbols.part_of(entry.address);
  }
  // Compile unit by compile unit (whose code is not always in one piece: cold parts sit together
  // at the end), by address: a thread's share then touches few units.
  std::sort(module.begin(), module.end(), [](const Pending& a, const Pending& b) {
    return a.part != b.part ? a.part < b.part : a.address < b.address;
  });
}

void AddressResolver::look_up(std::span<Pending> piece, ModuleSymbols* symbols) {
  if (symbols == nullptr) {
    return;  // they stay unanswered
  }
  for (Pending& entry : piece) {
    entry.answer = {symbols, symbols->lookup(entry.address)};
    symbols->prepare_description(entry.answer.index);
  }
}

std::span<AddressResolver::Pending> AddressResolver::last_piece(std::span<Pending> module) {
  if (module.empty()) {
    return module;
  }
  const std::size_t part = module.back().part;
  std::size_t first = module.size() - std::min(module.size(), kMostPerPiece);
  while (module[first].part != part) {
    ++first;
  }
  return module.subspan(first);
}

// The modules' DWARF indexes are read side by side, each by one thread through the module's
// first handles, which that thread then keeps (Module::owner). A thread done with its modules
// while another still reads one (libc's compressed debug file takes longest) looks up the last
// pieces of its own modules meanwhile: the part of the work that the even shares below would
// give the last thread anyway.
void AddressResolver::prepare(std::vector<Pending>& pending, std::size_t threads) {
  const std::vector<std::span<Pending>> modules = modules_of(pending);
  // Thread 0 takes modules from the front, the others from the back: the shares below start
  // thread 0 at the front too, so a module's first handles mostly stay with the thread whose
  // share it is in, and no other thread reads its index again (libc's inflated a second time).
  std::mutex mutex;
  std::size_t front = 0;
  std::size_t back = modules.size();
  const auto take = [&](std::size_t thread) -> std::optional<std::size_t> {
    const std::lock_guard<std::mutex> lock(mutex);
    if (front == back) {
      return std::nullopt;
    }
    return thread == 0 ? front++ : --back;
  };
  std::atomic<std::size_t> left{modules.size()};
  run_on_threads(std::min(threads, modules.size()), [&](std::size_t thread) {
    std::vector<std::span<Pending>> mine;
    while (const std::optional<std::size_t> m = take(thread)) {
      sort_by_part(modules[*m]);
      modules[*m].front().module->owner = thread;
      mine.push_back(modules[*m]);
      --left;
    }
    while (left > 0 && !mine.empty()) {
      const std::span<Pending> piece = last_piece(mine.back());
      look_up(piece, mine.back().front().module->symbols.get());
      mine.back() = mine.back().first(mine.back().size() - piece.size());
      if (mine.back().empty()) {
        mine.pop_back();
      }
    }
  });
}

void AddressResolver::prefetch(std::span<const Address> return_addresses) {
  if (options_.jobs <= 1) {
    return;
  }
  std::vector<Pending> pending = distinct_new(return_addresses);
  const std::size_t threads =
      std::min<std::size_t>(options_.jobs, pending.size() / kFewestPerThread);
  if (threads <= 1) {
    return;
  }
  prepare(pending, threads);
  open_handles(pending, threads);
  const std::vector<std::span<Pending>> pieces = pieces_of(pending);
  WorkRanges work(starts_of(pieces, threads), pieces.size());
  run_on_threads(threads, [&](std::size_t thread) {
    while (const std::optional<std::size_t> piece = work.next(thread)) {
      look_up(pieces[*piece], opened_handles(*pieces[*piece].front().module, thread));
    }
  });
  for (const Pending& entry : pending) {
    if (entry.answer.source != nullptr) {
      entry.module->prefetched.emplace(entry.address, entry.answer);
    }
  }
}

std::vector<std::span<AddressResolver::Pending>> AddressResolver::pieces_of(
    std::vector<Pending>& pending) {
  const auto answered = [](const Pending& entry) { return entry.answer.source != nullptr; };
  std::vector<std::span<Pending>> pieces;
  for (auto first = std::find_if_not(pending.begin(), pending.end(), answered);
       first != pending.end(); first = std::find_if_not(first, pending.end(), answered)) {
    const auto limit = first + std::min<std::ptrdiff_t>(kMostPerPiece, pending.end() - first);
    const auto last = std::find_if(first, limit, [&](const Pending& entry) {
      return entry.module != first->module || entry.part != first->part || answered(entry);
    });
    pieces.emplace_back(&*first, static_cast<std::size_t>(last - first));
    first = last;
  }
  return pieces;
}

std::vector<std::size_t> AddressResolver::starts_of(const std::vector<std::span<Pending>>& pieces,
                                                    std::size_t threads) {
  std::size_t total = 0;
  for (const std::span<Pending>& piece : pieces) {
    total += piece.size();
  }
  std::vector<std::size_t> starts{0};
  std::size_t before = 0;  // addresses in the pieces before `piece`
  for (std::size_t piece = 0; piece < pieces.size() && starts.size() < threads; ++piece) {
    if (before >= total * starts.size() / threads) {
      starts.push_back(piece);
    }
    before += pieces[piece].size();
  }
  starts.resize(threads, pieces.size());
  return starts;
}

// Every thread may end up in any module (taking over another's share), so each gets handles on
// every module with addresses; they are cheap until their tables are first read, on the thread.
void AddressResolver::open_handles(const std::vector<Pending>& pending, std::size_t threads) {
  for (auto entry = pending.begin(); entry != pending.end();) {
    for (std::size_t thread = 0; thread < threads; ++thread) {
      handles_for(*entry->module, thread);
    }
    const Module* module = entry->module;
    entry = std::find_if(entry, pending.end(),
                         [&](const Pending& other) { return other.module != module; });
  }
}

ModuleSymbols* AddressResolver::handles_for(Module& module, std::size_t thread) {
  if (thread == module.owner) {
    return module.symbols.get();
  }
  if (module.copies.size() <= thread) {
    module.copies.resize(thread + 1);
  }
  std::unique_ptr<ModuleSymbols>& copy = module.copies[thread];
  if (!copy) {
    copy = ModuleSymbols::open(module.on_disk, module.unreadable.module, search_, options_);
  }
  return copy.get();
}

ModuleSymbols* AddressResolver::opened_handles(const Module& module, std::size_t thread) {
  return thread == module.owner ? module.symbols.get() : module.copies.at(thread).get();
}

DescribedAnswer AddressResolver::take_description(AnswerKey key) {
  if (key.source == nullptr || key.index == kUnreadable) {
    DescribedAnswer described{describe(key), {}};
    described.hash = SymbolTable::hash(described.symbol);
    return described;
  }
  // The key names one of this resolver's own handles, which are not const.
  return const_cast<ModuleSymbols*>(static_cast<const ModuleSymbols*>(key.source))
      ->take_description(key.index);
}

const Symbol& AddressResolver::describe(AnswerKey key) {
  if (key.source == nullptr) {
    return unknown_;
  }
  if (key.index == kUnreadable) {
    return static_cast<const Module*>(key.source)->unreadable;
  }
  static_cast<const ModuleSymbols*>(key.source)->describe(key.index, described_);
  return described_;
}

}  // namespace rtrace::symbols
