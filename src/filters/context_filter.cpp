#include "filters/context_filter.h"

namespace rtrace {

void ContextFilter::context(const ContextInfo& context) {
  if ((context.id & mask_) != 0) {
    next().context(context);
  }
}

void ContextFilter::call(const CallRecord& record) {
  const std::uint32_t context = record.call.context;
  const bool selected = mask_ == 0 ? context == 0 : (context & mask_) != 0;
  if (selected) {
    next().call(record);
  }
}

}  // namespace rtrace
