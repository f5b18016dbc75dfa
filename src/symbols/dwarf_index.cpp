#include "symbols/dwarf_index.h"

#include <dwarf.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "symbols/demangle.h"
#include "symbols/die_ranges.h"
#include "symbols/function_body.h"

namespace rtrace::symbols {
namespace {

const char* string_attribute(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attribute;
  return dwarf_formstring(dwarf_attr_integrate(die, name, &attribute));
}

}  // namespace

// The functions below one DIE, with their address ranges, searchable by address.
// Optimised code interleaves the ranges of different inlined calls, so the index is a list of
// disjoint address segments, each with the deepest scope that covers it.
class DwarfIndex::ScopeTree {
 public:
  enum class Walk {
    Functions,     // a compile unit's functions (through namespaces), not what is inside them
    AllFunctions,  // every function with code anywhere below, e.g. a lambda's operator()
                   // whose code GCC describes inside the class inside the enclosing function
  };

  ScopeTree(Dwarf_Die root, Walk walk) : walk_(walk) {
    std::vector<Pending> pending{{root, -1, 0}};
    while (!pending.empty()) {
      Pending scope = pending.back();
      pending.pop_back();
      Dwarf_Die child;
      if (dwarf_child(&scope.die, &child) != 0) {
        continue;
      }
      do {
        visit(child, scope, pending);
      } while (dwarf_siblingof(&child, &child) == 0);
    }
    build_segments();
  }

  // The deepest scope whose code contains `address`; -1 if none.
  int innermost(std::uint64_t address) const {
    auto after = std::upper_bound(
        segments_.begin(), segments_.end(), address,
        [](std::uint64_t value, const Segment& segment) { return value < segment.start; });
    return after == segments_.begin() ? -1 : std::prev(after)->node;
  }

  Dwarf_Off offset(int node) const { return nodes_[node].offset; }
  // The function's name, once read: addresses share functions.
  const std::string*& name(int node) { return nodes_[node].name; }

 private:
  struct Node {
    Dwarf_Off offset = 0;
    int parent = -1;
    int depth = 0;
    const std::string* name = nullptr;
  };
  struct Range {
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    int node = 0;
  };
  struct Segment {
    std::uint64_t start = 0;
    int node = -1;  // -1: no scope (a gap between functions)
  };
  struct Pending {
    Dwarf_Die die;
    int node;
    int depth;
  };

  // Sweeps the range boundaries in address order, keeping the scopes open at each point.
  void build_segments() {
    struct Boundary {
      std::uint64_t address;
      bool opens;
      int node;
    };
    std::vector<Boundary> boundaries;
    boundaries.reserve(ranges_.size() * 2);
    for (const Range& range : ranges_) {
      boundaries.push_back({range.low, true, range.node});
      boundaries.push_back({range.high, false, range.node});
    }
    std::sort(boundaries.begin(), boundaries.end(),
              [](const Boundary& a, const Boundary& b) { return a.address < b.address; });
    std::multiset<std::pair<int, int>> open;  // (depth, node): the deepest is the last
    for (std::size_t i = 0; i < boundaries.size();) {
      const std::uint64_t address = boundaries[i].address;
      for (; i < boundaries.size() && boundaries[i].address == address; ++i) {
        const std::pair<int, int> scope{nodes_[boundaries[i].node].depth, boundaries[i].node};
        if (boundaries[i].opens) {
          open.insert(scope);
        } else if (auto found = open.find(scope); found != open.end()) {
          open.erase(found);
        }
      }
      const int node = open.empty() ? -1 : open.rbegin()->second;
      if (segments_.empty() || segments_.back().node != node) {
        segments_.push_back({address, node});
      }
    }
  }

  void visit(Dwarf_Die& die, const Pending& scope, std::vector<Pending>& pending) {
    switch (dwarf_tag(&die)) {
      case DW_TAG_subprogram: {
        const int node = has_code(&die) ? add_node(die, scope) : -1;
        if (node >= 0 && walk_ == Walk::AllFunctions) {
          pending.push_back({die, node, scope.depth + 1});
        } else if (node < 0 && walk_ == Walk::AllFunctions) {
          pending.push_back({die, scope.node, scope.depth});
        }
        break;
      }
      case DW_TAG_lexical_block:
      case DW_TAG_try_block:
      case DW_TAG_catch_block:
        if (walk_ != Walk::Functions) {
          pending.push_back({die, scope.node, scope.depth});
        }
        break;
      case DW_TAG_namespace:
        pending.push_back({die, scope.node, scope.depth});
        break;
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
      case DW_TAG_union_type:
        if (walk_ == Walk::AllFunctions) {
          pending.push_back({die, scope.node, scope.depth});
        }
        break;
      default:
        break;
    }
  }

  int add_node(Dwarf_Die& die, const Pending& scope) {
    const std::size_t first = ranges_.size();
    const int node = static_cast<int>(nodes_.size());
    for_each_range(&die, [&](Dwarf_Addr low, Dwarf_Addr high) {
      ranges_.push_back({low, high, node});
    });
    if (ranges_.size() == first) {
      return -1;
    }
    nodes_.push_back({dwarf_dieoffset(&die), scope.node, scope.depth});
    return node;
  }

  Walk walk_;
  std::vector<Node> nodes_;
  std::vector<Range> ranges_;
  std::vector<Segment> segments_;  // by start address; each ends where the next starts
};

// One compile unit: its functions, the inlined calls of each function (indexed when an address
// first falls into it), and its file table for the lines of inlined calls.
class DwarfIndex::UnitScopes {
 public:
  UnitScopes(DwarfIndex& index, Dwarf_Die unit_die)
      : index_(index), unit_die_(unit_die), functions_(unit_die, ScopeTree::Walk::Functions) {}

  // Appends to `frames` the function at `address` and the callers it was inlined into;
  // frames[0] already holds the line of the address.
  void describe(std::uint64_t address, bool in_some_function, std::vector<SourceFrame>& frames) {
    ScopeTree* functions = &functions_;
    int function = functions->innermost(address);
    if (function < 0 && !in_some_function) {
      return;
    }
    if (function < 0) {
      // Not a function at namespace level: look everywhere (once per unit).
      if (!all_functions_) {
        all_functions_ = std::make_unique<ScopeTree>(unit_die_, ScopeTree::Walk::AllFunctions);
      }
      functions = all_functions_.get();
      function = functions->innermost(address);
      if (function < 0) {
        return;
      }
    }
    FunctionBody& body = body_of(functions->offset(function));
    int node = body.innermost(address);
    frames[0].function = node >= 0 ? name_of(body, node) : name_of(*functions, function);
    // Each inlined call adds its caller (an enclosing inlined call, or the function itself).
    while (node >= 0 && body.inlined(node)) {
      const int caller = body.parent(node);
      SourceFrame frame = call_site(body, node);
      frame.function = caller >= 0 ? name_of(body, caller) : name_of(*functions, function);
      frames.push_back(frame);
      node = caller;
    }
  }

 private:
  FunctionBody& body_of(Dwarf_Off function) {
    std::unique_ptr<FunctionBody>& body = bodies_[function];
    if (!body) {
      body = std::make_unique<FunctionBody>(index_.dwarf_, function);
    }
    return *body;
  }

  template <typename Tree>
  const std::string* name_of(Tree& tree, int node) {
    const std::string*& name = tree.name(node);
    if (name == nullptr) {
      static const std::string none;
      Dwarf_Die die;
      name = dwarf_offdie(index_.dwarf_, tree.offset(node), &die) != nullptr
                 ? &index_.function_name(&die)
                 : &none;
    }
    return name;
  }

  SourceFrame call_site(FunctionBody& tree, int node) {
    const SourceFrame*& site = tree.call_site(node);
    if (site == nullptr) {
      SourceFrame frame;
      Dwarf_Die die;
      Dwarf_Attribute attribute;
      Dwarf_Word file = 0;
      Dwarf_Word line = 0;
      if (dwarf_offdie(index_.dwarf_, tree.offset(node), &die) != nullptr) {
        if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attribute), &file) == 0) {
          frame.file = file_name(file);
        }
        if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attribute), &line) == 0) {
          frame.line = static_cast<int>(line);
        }
      }
      site = &call_sites_.emplace_back(frame);
    }
    return *site;
  }

  const char* file_name(Dwarf_Word index) {
    if (!files_loaded_) {
      files_loaded_ = true;
      if (dwarf_getsrcfiles(&unit_die_, &files_, &file_count_) != 0) {
        file_count_ = 0;
      }
    }
    if (index >= file_count_) {
      return "";
    }
    const char* name = dwarf_filesrc(files_, index, nullptr, nullptr);
    return name != nullptr ? name : "";
  }

  DwarfIndex& index_;
  Dwarf_Die unit_die_;
  ScopeTree functions_;
  std::unique_ptr<ScopeTree> all_functions_;  // built when functions_ has no answer
  std::unordered_map<Dwarf_Off, std::unique_ptr<FunctionBody>> bodies_;  // by function DIE
  std::deque<SourceFrame> call_sites_;  // stable addresses for the trees' caches
  Dwarf_Files* files_ = nullptr;
  std::size_t file_count_ = 0;
  bool files_loaded_ = false;
};

DwarfIndex::DwarfIndex(Dwarf* dwarf, Dwarf_Addr bias) : dwarf_(dwarf), bias_(bias) {
  Dwarf_CU* unit = nullptr;
  Dwarf_Die die;
  std::uint8_t unit_type = 0;
  while (dwarf_get_units(dwarf_, unit, &unit, nullptr, &unit_type, &die, nullptr) == 0) {
    if (dwarf_tag(&die) != DW_TAG_compile_unit) {
      continue;
    }
    const std::size_t index = units_.size();
    units_.push_back({die, nullptr});
    for_each_range(&die, [&](Dwarf_Addr low, Dwarf_Addr high) {
      ranges_.push_back({low, high, index});
    });
  }
  std::sort(ranges_.begin(), ranges_.end(),
            [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
}

DwarfIndex::~DwarfIndex() = default;

const DwarfIndex::UnitRange* DwarfIndex::range_at(std::uint64_t dwarf_address) const {
  auto after = std::upper_bound(
      ranges_.begin(), ranges_.end(), dwarf_address,
      [](std::uint64_t value, const UnitRange& range) { return value < range.low; });
  if (after == ranges_.begin()) {
    return nullptr;
  }
  const UnitRange& range = *std::prev(after);
  return dwarf_address < range.high ? &range : nullptr;
}

DwarfIndex::Unit* DwarfIndex::unit_at(std::uint64_t dwarf_address) {
  const UnitRange* range = range_at(dwarf_address);
  return range != nullptr ? &units_[range->unit] : nullptr;
}

std::optional<std::size_t> DwarfIndex::unit_number(std::uint64_t address) const {
  const UnitRange* range = range_at(address - bias_);
  return range != nullptr ? std::optional<std::size_t>(range->unit) : std::nullopt;
}

const std::string& DwarfIndex::function_name(Dwarf_Die* die) {
  // Inlined calls and out-of-line copies name their function through DW_AT_abstract_origin;
  // many of them share one origin, whose name is then looked for (through its declaration)
  // once.
  Dwarf_Attribute attribute;
  Dwarf_Die origin;
  if (dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attribute), &origin) != nullptr) {
    auto [entry, added] = by_origin_.try_emplace(origin.addr, nullptr);
    if (added) {
      entry->second = &own_function_name(&origin);
    }
    return *entry->second;
  }
  return own_function_name(die);
}

const std::string& DwarfIndex::own_function_name(Dwarf_Die* die) {
  const char* name = string_attribute(die, DW_AT_linkage_name);
  if (name == nullptr) {
    name = string_attribute(die, DW_AT_MIPS_linkage_name);
  }
  if (name == nullptr) {
    name = string_attribute(die, DW_AT_name);
  }
  if (name == nullptr) {
    name = "";
  }
  auto [entry, added] = names_.try_emplace(name);
  if (added) {
    entry->second = display_function_name(name);
  }
  return entry->second;
}

bool DwarfIndex::lookup(std::uint64_t address, bool in_some_function,
                        std::vector<SourceFrame>& frames) {
  frames.clear();
  const std::uint64_t dwarf_address = address - bias_;
  Unit* unit = unit_at(dwarf_address);
  if (unit == nullptr) {
    return false;
  }
  Dwarf_Line* line = dwarf_getsrc_die(&unit->die, dwarf_address);
  int line_number = 0;
  const char* file = line != nullptr ? dwarf_linesrc(line, nullptr, nullptr) : nullptr;
  if (file == nullptr || dwarf_lineno(line, &line_number) != 0 || line_number <= 0) {
    return false;
  }

  if (!unit->scopes) {
    unit->scopes = std::make_unique<UnitScopes>(*this, unit->die);
  }
  static const std::string no_function;
  frames.push_back({&no_function, file, line_number});
  unit->scopes->describe(dwarf_address, in_some_function, frames);
  return true;
}

}  // namespace rtrace::symbols
