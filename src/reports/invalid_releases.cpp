// The report's side of memcheck's "Invalid free() / delete / delete[] / realloc()": releases of
// memory ids that are not alive. A block of the memory type, once released, is remembered (its
// size, site and release backtrace) until its address is allocated again, so that a second
// release of it is told apart as a double free with the first release's and the allocation's
// backtraces; a release of an address never allocated (a stack address, a pointer into a block)
// has its own backtrace only. In a trace of an attached process the addresses never seen
// allocated are blocks allocated before the attach, not errors.
#include <algorithm>

#include "reports/report_builder.h"

namespace rtrace::reports {

void ReportBuilder::note_released(const CallRecord& record, const ResourceKey& key,
                                  const LiveBlock& block) {
  if (key.type != memory_type_) {
    return;
  }
  // Without release backtraces (the default) every release has the empty backtrace: nothing to
  // intern.
  const CallingContextTree::NodeId release =
      record.frames.empty() ? CallingContextTree::kRoot : tree_->intern(record.frames);
  const auto [position, added] =
      freed_.insert(key, FreedBlock{.size = block.size, .site = block.site, .release = release});
  if (!added) {
    freed_.at(position) = FreedBlock{.size = block.size, .site = block.site, .release = release};
  }
}

void ReportBuilder::note_invalid_release(const CallRecord& record, const ResourceKey& key) {
  if (key.type != memory_type_) {
    return;
  }
  const std::size_t freed = freed_.find(key);
  const bool double_free = freed != ResourceMap<FreedBlock>::kNone;
  if (!double_free && data_.attached) {
    return;  // allocated before the attach
  }
  const FreedBlock first = double_free ? freed_.at(freed) : FreedBlock{};
  const CallingContextTree::NodeId release =
      record.frames.empty() ? CallingContextTree::kRoot : tree_->intern(record.frames);
  const InvalidKey invalid{
      double_free ? InvalidRelease::Cause::AlreadyReleased : InvalidRelease::Cause::NeverAllocated,
      key.type,
      function_id(record.function),
      release,
      first.release,
      double_free ? first.site + 1 : 0};
  InvalidCount& count = invalid_[invalid];
  if (count.count++ == 0) {
    count.id = key.id;
    count.first_call = record.call.index;
    count.size = first.size;
  }
}

void ReportBuilder::finish_invalid_releases() {
  const auto names_of = [&](CallingContextTree::NodeId node) {
    FrameNames names;
    tree_->for_each_frame(
        node, [&](std::uint32_t frame) { names.emplace_back((*descriptions_)[frame].name); });
    return names;
  };
  for (const auto& [key, count] : invalid_) {
    const auto& [cause, type, releaser, release, first_release, site] = key;
    InvalidRelease invalid{.cause = cause,
                           .type = type,
                           .released_by = functions_[releaser],
                           .id = count.id,
                           .first_call = count.first_call,
                           .count = count.count,
                           .release_frame_names = names_of(release),
                           .first_release_frame_names = names_of(first_release),
                           .size = count.size};
    if (site != 0) {
      invalid.site = site - 1;
    }
    data_.invalid_releases.push_back(std::move(invalid));
  }
  std::ranges::sort(data_.invalid_releases, {}, &InvalidRelease::first_call);
  invalid_ = {};
  freed_ = {};
}

}  // namespace rtrace::reports
