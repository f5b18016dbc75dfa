// Copies of calls held back by the resolve stage while their addresses are looked up on several
// threads at once: the records it receives point into the reader's buffers, valid only during
// the call, so the batch keeps its own copy of each call's name, arguments and frames.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "model/records.h"

namespace rtrace::symbols {

class CallBatch {
 public:
  void add(const CallRecord& record);
  void clear();

  bool empty() const { return calls_.empty(); }
  std::size_t frame_count() const { return frames_.size(); }
  std::size_t call_count() const { return calls_.size(); }
  std::size_t text_size() const { return text_.size(); }
  // Every held frame, in call order.
  std::span<const Frame> frames() const { return frames_; }

  // Calls visit(record) for each held call in the order they came; the record is valid only
  // during the visit.
  template <typename Visit>
  void for_each(Visit&& visit) {
    for (const Held& held : calls_) {
      arguments_.clear();
      for (std::size_t i = 0; i < held.argument_count; ++i) {
        const Span& name = argument_text_[2 * (held.first_argument + i)];
        const Span& value = argument_text_[2 * (held.first_argument + i) + 1];
        arguments_.push_back({view(name), view(value)});
      }
      visit(CallRecord{
          .call = held.call,
          .function = view(held.function),
          .arguments = arguments_,
          .frames = std::span<const Frame>(frames_).subspan(held.first_frame, held.frame_count),
      });
    }
  }

 private:
  struct Span {
    std::size_t offset = 0;
    std::size_t size = 0;
  };
  struct Held {
    Call call;
    Span function;
    std::size_t first_argument = 0;
    std::size_t argument_count = 0;
    std::size_t first_frame = 0;
    std::size_t frame_count = 0;
  };

  Span keep(std::string_view text);
  std::string_view view(const Span& span) const { return {text_.data() + span.offset, span.size}; }

  std::vector<Held> calls_;
  std::string text_;                 // every held name and argument, back to back
  std::vector<Span> argument_text_;  // (name, value) of each held argument
  std::vector<Frame> frames_;
  std::vector<Argument> arguments_;  // scratch for for_each()
};

}  // namespace rtrace::symbols
