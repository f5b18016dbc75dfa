#include "reports/calling_context_tree.h"

#include <array>

#include "model/seeded_hash.h"

namespace rtrace::reports {
namespace {

constexpr std::size_t kFirstSlots = 1024;

std::uint32_t check_of(std::uint64_t hash) {
  return static_cast<std::uint32_t>(hash >> 32);
}

}  // namespace

CallingContextTree::CallingContextTree()
    : hash_(hash_seed()), nodes_(1), child_slots_(kFirstSlots, kEmpty), stack_slots_(kFirstSlots) {}

std::uint64_t CallingContextTree::stack_hash(std::span<const Frame> frames) const {
  return hash_(frames, [](const Frame& frame) { return sequence_words(frame); });
}

std::uint64_t CallingContextTree::child_hash(NodeId parent, std::uint32_t frame) const {
  const std::array<std::uint64_t, 1> key{std::uint64_t{parent} << 32 | frame};
  return hash_(std::span<const std::uint64_t>(key),
               [](std::uint64_t value) { return sequence_words(value); });
}

std::size_t CallingContextTree::depth(NodeId node) const {
  std::size_t count = 0;
  for_each_frame(node, [&](std::uint32_t) { ++count; });
  return count;
}

// Whether the path to `node` is `frames`, innermost first.
bool CallingContextTree::path_is(NodeId node, std::span<const Frame> frames) const {
  for (const Frame& f : frames) {
    if (node == kRoot || frame(nodes_[node].frame) != f) {
      return false;
    }
    node = nodes_[node].parent;
  }
  return node == kRoot;
}

CallingContextTree::NodeId CallingContextTree::intern(std::span<const Frame> frames) {
  if (frames.empty()) {
    return kRoot;
  }
  const std::uint64_t hash = stack_hash(frames);
  const std::size_t mask = stack_slots_.size() - 1;
  for (std::size_t i = hash & mask; stack_slots_[i].node != kEmpty; i = (i + 1) & mask) {
    if (stack_slots_[i].check == check_of(hash) && path_is(stack_slots_[i].node, frames)) {
      return stack_slots_[i].node;
    }
  }
  // A backtrace not seen before: its path from the outermost frame in.
  NodeId node = kRoot;
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) {
    node = child(node, frames_.intern(std::span(&*f, 1)) - 1);
  }
  stack_hashes_.push_back(hash);
  stack_nodes_.push_back(node);
  if (stack_hashes_.size() * 2 > stack_slots_.size()) {
    grow_stacks();
  } else {
    place_stack(node, hash);
  }
  return node;
}

CallingContextTree::NodeId CallingContextTree::child(NodeId parent, std::uint32_t frame) {
  const std::uint64_t hash = child_hash(parent, frame);
  const std::size_t mask = child_slots_.size() - 1;
  for (std::size_t i = hash & mask; child_slots_[i] != kEmpty; i = (i + 1) & mask) {
    const Node& known = nodes_[child_slots_[i]];
    if (known.parent == parent && known.frame == frame) {
      return child_slots_[i];
    }
  }
  const auto node = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(Node{.parent = parent, .frame = frame});
  if (nodes_.size() * 2 > child_slots_.size()) {
    grow_children();
  } else {
    place_child(node);
  }
  return node;
}

void CallingContextTree::place_stack(NodeId node, std::uint64_t hash) {
  const std::size_t mask = stack_slots_.size() - 1;
  std::size_t i = hash & mask;
  while (stack_slots_[i].node != kEmpty) {
    i = (i + 1) & mask;
  }
  stack_slots_[i] = StackSlot{.node = node, .check = check_of(hash)};
}

void CallingContextTree::place_child(NodeId node) {
  const std::size_t mask = child_slots_.size() - 1;
  std::size_t i = child_hash(nodes_[node].parent, nodes_[node].frame) & mask;
  while (child_slots_[i] != kEmpty) {
    i = (i + 1) & mask;
  }
  child_slots_[i] = node;
}

void CallingContextTree::grow_children() {
  child_slots_.assign(child_slots_.size() * 2, kEmpty);
  for (NodeId node = 1; node < nodes_.size(); ++node) {
    place_child(node);
  }
}

void CallingContextTree::grow_stacks() {
  stack_slots_.assign(stack_slots_.size() * 2, StackSlot{});
  for (std::size_t i = 0; i < stack_hashes_.size(); ++i) {
    place_stack(stack_nodes_[i], stack_hashes_[i]);
  }
}

}  // namespace rtrace::reports
