// The resources alive at one moment, under the rule the original post-processor applies.
//
// A resource is a (resource type, id) pair. An allocation of a live id starts a new block (the
// earlier one is forgotten here: it leaked), except for a type flagged refcount, where it adds a
// reference to the live block. A release drops a reference and ends the block at zero, at once
// for types without the flag. The leaks stage and the report share this so that they always agree
// on what is alive.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "filters/resource_map.h"
#include "model/records.h"

namespace rtrace {

// A single-type trace may leave a call's type unset (0); it is the first (only) type.
constexpr std::uint32_t effective_resource_type(std::uint32_t type) {
  return type == 0 ? 1 : type;
}

inline ResourceKey resource_key(const Call& call) {
  return {.id = call.resource_id, .type = effective_resource_type(call.resource_type)};
}

// `Value` is what the caller keeps per block; small and trivially copyable.
template <typename Value>
class LiveResources {
 public:
  // Learns a resource type; those flagged refcount count references from now on.
  void add_type(const ResourceType& type) {
    const std::uint32_t id = effective_resource_type(type.id);
    if (type.refcounted() && !refcounted(id)) {
      refcounted_types_.push_back(id);
    }
  }

  // An allocation of `key`: where to store the new block's value, or nullptr when the
  // allocation only added a reference to a live block.
  Value* allocate(const ResourceKey& key) {
    const auto [position, added] = blocks_.insert(key, Block{});
    Block& block = blocks_.at(position);
    if (!added && refcounted(key.type)) {
      ++block.references;
      return nullptr;
    }
    block = Block{.value = Value{}, .references = 1};
    return &block.value;
  }

  // The value of the live block `key`, or null when it is not live.
  const Value* find(const ResourceKey& key) const {
    const std::size_t position = blocks_.find(key);
    return position == ResourceMap<Block>::kNone ? nullptr : &blocks_.at(position).value;
  }

  // A release of `key`: the block it ends, or nothing (an unknown id, or references remain).
  std::optional<Value> release(const ResourceKey& key) {
    const std::size_t position = blocks_.find(key);
    if (position == ResourceMap<Block>::kNone) {
      return std::nullopt;
    }
    Block& block = blocks_.at(position);
    // Only a block that took more than one reference needs the (rare) type check.
    if (--block.references > 0 && refcounted(key.type)) {
      return std::nullopt;
    }
    const Value ended = block.value;
    blocks_.erase_at(position);
    return ended;
  }

  // Whether `key` is alive (after a release that returned nothing: references remain).
  bool contains(const ResourceKey& key) const {
    return blocks_.find(key) != ResourceMap<Block>::kNone;
  }

 private:
  struct Block {
    Value value{};
    std::uint32_t references = 0;
  };

  bool refcounted(std::uint32_t type) const {
    return std::ranges::find(refcounted_types_, type) != refcounted_types_.end();
  }

  ResourceMap<Block> blocks_;
  std::vector<std::uint32_t> refcounted_types_;  // few: a trace registers a handful of types
};

}  // namespace rtrace
