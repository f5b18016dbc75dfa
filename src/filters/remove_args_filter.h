// -a / --remove-args: drops the `$name = value` argument lines of every call.
#pragma once

#include "model/trace_sink.h"

namespace rtrace {

class RemoveArgsFilter final : public ForwardingSink {
 public:
  using ForwardingSink::ForwardingSink;

  void call(const CallRecord& record) override;
};

}  // namespace rtrace
