#include "symbols/call_batch.h"

namespace rtrace::symbols {

CallBatch::Span CallBatch::keep(std::string_view text) {
  const Span span{text_.size(), text.size()};
  text_.append(text);
  return span;
}

void CallBatch::add(const CallRecord& record) {
  Held held{.call = record.call,
            .function = keep(record.function),
            .first_argument = argument_text_.size() / 2,
            .argument_count = record.arguments.size(),
            .first_frame = frames_.size(),
            .frame_count = record.frames.size()};
  for (const Argument& argument : record.arguments) {
    argument_text_.push_back(keep(argument.name));
    argument_text_.push_back(keep(argument.value));
  }
  frames_.insert(frames_.end(), record.frames.begin(), record.frames.end());
  calls_.push_back(held);
}

void CallBatch::clear() {
  calls_.clear();
  text_.clear();
  argument_text_.clear();
  frames_.clear();
}

}  // namespace rtrace::symbols
