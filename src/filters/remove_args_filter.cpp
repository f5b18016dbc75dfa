#include "filters/remove_args_filter.h"

namespace rtrace {

void RemoveArgsFilter::call(const CallRecord& record) {
  CallRecord bare = record;
  bare.arguments = {};
  next().call(bare);
}

}  // namespace rtrace
