#include "filters/call_store.h"

namespace rtrace {

StoredCall CallStore::store(const CallRecord& record) {
  // Long runs of calls name the same function: compare before hashing.
  if (record.function != strings_.view(last_function_)) {
    last_function_ = strings_.intern(record.function);
  }
  StoredCall stored{.call = record.call,
                    .function = last_function_,
                    .arguments = 0,
                    .backtrace = backtraces_.intern(record.frames)};
  if (!record.arguments.empty()) {
    packed_.clear();
    for (const Argument& argument : record.arguments) {
      const std::uint64_t name = strings_.intern(argument.name);
      const std::uint64_t value = strings_.intern(argument.value);
      packed_.push_back(name << 32 | value);
    }
    stored.arguments = argument_lists_.intern(packed_);
  }
  return stored;
}

void CallStore::append_arguments(const StoredCall& stored, std::vector<Argument>& arguments) const {
  for (const std::uint64_t packed : argument_lists_.at(stored.arguments)) {
    arguments.push_back({strings_.view(static_cast<StringId>(packed >> 32)),
                         strings_.view(static_cast<StringId>(packed & 0xffffffffU))});
  }
}

}  // namespace rtrace
