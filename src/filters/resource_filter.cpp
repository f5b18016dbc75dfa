#include "filters/resource_filter.h"

namespace rtrace {

bool ResourceFilter::selected(std::uint32_t type) const {
  // A single-type trace may leave a call's type unset (0): it is type 1.
  const std::uint32_t id = type == 0 ? 1 : type;
  return id <= 32 && ((std::uint64_t{1} << (id - 1)) & mask_) != 0;
}

void ResourceFilter::resource_type(const ResourceType& type) {
  if (!selected(type.id)) {
    return;
  }
  if (registry_released_) {
    next().resource_type(type);
  } else {
    waiting_.push_back(type);
  }
}

void ResourceFilter::release_registry() {
  if (registry_released_) {
    return;
  }
  registry_released_ = true;
  if (waiting_.size() == 1 && waiting_.front().id != 1) {
    renumbered_from_ = waiting_.front().id;
    waiting_.front().id = 1;
  }
  for (const ResourceType& type : waiting_) {
    next().resource_type(type);
  }
  waiting_.clear();
}

void ResourceFilter::call(const CallRecord& record) {
  release_registry();
  if (!selected(record.call.resource_type)) {
    return;
  }
  if (renumbered_from_ == 0 || record.call.resource_type != renumbered_from_) {
    next().call(record);
    return;
  }
  CallRecord renumbered = record;
  renumbered.call.resource_type = 1;
  next().call(renumbered);
}

void ResourceFilter::group(const CallGroup& group) {
  release_registry();
  next().group(group);
}

void ResourceFilter::finish() {
  release_registry();
  next().finish();
}

}  // namespace rtrace
