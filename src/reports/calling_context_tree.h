// The backtraces of a trace as one calling-context tree: each distinct backtrace is a path from
// the root (the outermost caller) to its node (the innermost frame), and backtraces that share
// their outer frames share those nodes, as heaptrack's trace tree does. A backtrace is named by
// its node; walking up from a node gives its frames innermost first.
//
// Memory follows the nodes and the distinct frames, never the calls nor the length of each
// backtrace: a node is two words (its parent and its frame's index), and each distinct frame
// {address, symbol} is stored once, so that whatever describes a frame does it once per distinct
// frame. Looking up a backtrace seen before costs one hash of its frames and one walk up its
// path to check them; a new one adds the nodes its path lacks.
//
// The frames come from the trace, so every table is keyed with the process's secret seed
// (sequence_hash.h): a crafted trace cannot make its backtraces share a probe run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/backtrace_table.h"
#include "model/records.h"
#include "model/sequence_hash.h"

namespace rtrace::reports {

class CallingContextTree {
 public:
  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;  // the empty backtrace

  CallingContextTree();

  // The node of `frames` (innermost first), adding the nodes its path lacks.
  NodeId intern(std::span<const Frame> frames);

  // The node's caller (kRoot for an outermost frame); not for the root.
  NodeId parent(NodeId node) const { return nodes_[node].parent; }
  // The index of the node's frame among the distinct frames; not for the root.
  std::uint32_t frame_index(NodeId node) const { return nodes_[node].frame; }
  // The distinct frame of that index.
  const Frame& frame(std::uint32_t index) const { return frames_.at(index + 1).front(); }

  // Nodes, the root included; node ids are below this.
  std::size_t size() const { return nodes_.size(); }
  // Distinct frames; frame indices are below this.
  std::size_t frame_count() const { return frames_.size() - 1; }

  // Calls `visit(frame_index)` for each frame of the path to `node`, innermost first.
  template <typename Visit>
  void for_each_frame(NodeId node, Visit visit) const {
    for (; node != kRoot; node = nodes_[node].parent) {
      visit(nodes_[node].frame);
    }
  }
  // How many frames the path to `node` has.
  std::size_t depth(NodeId node) const;

 private:
  struct Node {
    NodeId parent = kRoot;
    std::uint32_t frame = 0;
  };
  static constexpr NodeId kEmpty = ~NodeId{0};
  // A backtrace's slot: its node, and the upper half of its hash to compare before walking.
  struct StackSlot {
    NodeId node = kEmpty;
    std::uint32_t check = 0;
  };

  std::uint64_t stack_hash(std::span<const Frame> frames) const;
  std::uint64_t child_hash(NodeId parent, std::uint32_t frame) const;
  bool path_is(NodeId node, std::span<const Frame> frames) const;
  NodeId child(NodeId parent, std::uint32_t frame);
  void place_stack(NodeId node, std::uint64_t hash);
  void place_child(NodeId node);
  void grow_children();
  void grow_stacks();

  SequenceHash hash_;
  std::vector<Node> nodes_;
  // Each distinct frame interned as a backtrace of one frame: id - 1 is its index.
  BacktraceTable frames_;
  // Open addressing, node ids: the child of (parent, frame), hashed by child_hash.
  std::vector<NodeId> child_slots_;
  // Open addressing: each backtrace interned so far, by its frames' hash.
  std::vector<StackSlot> stack_slots_;
  std::vector<std::uint64_t> stack_hashes_;  // of the backtraces placed, to place them again
  std::vector<NodeId> stack_nodes_;          // parallel to stack_hashes_
};

}  // namespace rtrace::reports
