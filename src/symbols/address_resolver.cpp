#include "symbols/address_resolver.h"

#include <sys/stat.h>

#include <iterator>
#include <utility>

namespace rtrace::symbols {

AddressResolver::AddressResolver(ResolveOptions options)
    : options_(std::move(options)), search_(options_.root) {}

AddressResolver::~AddressResolver() = default;

AddressResolver::Module& AddressResolver::module(const std::string& path) {
  std::unique_ptr<Module>& slot = modules_[path];
  if (!slot) {
    slot = std::make_unique<Module>();
    // Pseudo files such as [vdso] are not on disk; only absolute paths are looked up, and only
    // regular files (a trace naming a FIFO or a device must not make us block or read forever).
    struct stat file {};
    const std::string on_disk = options_.root + path;
    if (path.starts_with('/') && ::stat(on_disk.c_str(), &file) == 0 && S_ISREG(file.st_mode)) {
      slot->symbols = ModuleSymbols::open(on_disk, path, search_, options_);
    }
    slot->unreadable.module = path;
  }
  return *slot;
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

AddressResolver::AnswerKey AddressResolver::lookup(Address return_address) {
  if (return_address == 0) {
    return {};
  }
  const Address call_address = return_address - 1;
  auto after = regions_.upper_bound(call_address);
  if (after == regions_.begin()) {
    return {};
  }
  const Region& region = std::prev(after)->second;
  if (call_address >= region.end) {
    return {};
  }
  if (!region.module->symbols) {
    return {region.module, kUnreadable};
  }
  ModuleSymbols* symbols = region.module->symbols.get();
  return {symbols, symbols->lookup(call_address - region.bias)};
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
