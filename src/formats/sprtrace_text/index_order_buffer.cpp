#include "formats/sprtrace_text/index_order_buffer.h"

#include <algorithm>

namespace rtrace::sprtrace_text {

void IndexOrderBuffer::add(const CallRecord& record) {
  HeldCall& held = calls_.emplace_back();
  held.call = record.call;
  held.function = functions_.intern(record.function);
  held.backtrace = backtraces_.intern(record.frames);
  held.arguments_begin = arguments_.size();
  held.argument_count = record.arguments.size();
  for (const Argument& argument : record.arguments) {
    arguments_.push_back({argument_text_.size(), argument.name.size(), argument.value.size()});
    argument_text_ += argument.name;
    argument_text_ += argument.value;
  }
}

void IndexOrderBuffer::deliver(TraceSink& sink) {
  std::stable_sort(calls_.begin(), calls_.end(), [](const HeldCall& a, const HeldCall& b) {
    return a.call.index < b.call.index;
  });
  const std::string_view text = argument_text_;
  std::vector<Argument> arguments;
  for (const HeldCall& held : calls_) {
    arguments.clear();
    for (std::size_t i = 0; i < held.argument_count; ++i) {
      const HeldArgument& a = arguments_[held.arguments_begin + i];
      arguments.push_back({text.substr(a.name_begin, a.name_size),
                           text.substr(a.name_begin + a.name_size, a.value_size)});
    }
    CallRecord record;
    record.call = held.call;
    record.function = functions_.view(held.function);
    record.arguments = arguments;
    record.frames = backtraces_.frames(held.backtrace);
    sink.call(record);
  }
  calls_.clear();
  arguments_.clear();
  argument_text_.clear();
}

}  // namespace rtrace::sprtrace_text
