#include "filters/call_store.h"

#include <algorithm>

namespace rtrace {

StoredCall CallStore::store(const CallRecord& record) {
  // Long runs of calls name the same function: compare before hashing.
  if (record.function != strings_.view(last_function_)) {
    last_function_ = strings_.intern(record.function);
  }
  // And often share the backtrace (a loop, a churn): comparing it costs less than hashing it.
  if (!std::ranges::equal(record.frames, backtraces_.frames(last_backtrace_))) {
    last_backtrace_ = backtraces_.intern(record.frames);
  }
  StoredCall stored{.call = record.call,
                    .function = last_function_,
                    .arguments = 0,
                    .backtrace = last_backtrace_};
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
