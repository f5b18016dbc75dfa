// The registries a trace declares (tracing modules, contexts, resource types), passed on once by
// a reader that goes on into the next trace of a concatenation: `rtrace process` writes a stream
// of several processes as one trace per process, one after the other, and each declares the same
// modules and types again.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/records.h"

namespace rtrace {

class DeclaredOnce {
 public:
  // Whether `declared` is new (then remembered): false for a repeat of one passed on before.
  bool first(const ModuleInfo& m) {
    return first_key(
        fmt::format("module {} {} {}.{}", m.id, m.name, m.version_major, m.version_minor));
  }
  bool first(const ContextInfo& c) { return first_key(fmt::format("context {} {}", c.id, c.name)); }
  bool first(const ResourceType& t) {
    return first_key(fmt::format("type {} {} {} {}", t.id, t.flags, t.type, t.description));
  }

 private:
  bool first_key(std::string key) {
    if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) {
      return false;
    }
    keys_.push_back(std::move(key));
    return true;
  }

  std::vector<std::string> keys_;
};

}  // namespace rtrace
