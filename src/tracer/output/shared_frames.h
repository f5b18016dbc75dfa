// The frames of the last transient record (transient_record.h) of a ring, as each side of the
// ring knows them: a record keeps only the frames that differ from the previous transient
// record's in the same ring (the leading ones: its outer frames, the same callers, are not
// written again), and the drain, which takes a ring's records in order, puts them back from its
// own copy. Repeated call sites are the rule (the walk memo, walk_memo.h, exists for them): a
// memcpy after a memset in the same function keeps 1 frame of 10, 8 bytes in the ring instead of
// 80. The bytes written into ring memory, not the instructions, were what a transfer's record
// cost the traced thread above an allocation's: 64 bytes a record instead of 136 took 12 ns off
// a transfer (bench/memtransfer-ab.sh).
//
// Both copies follow one rule from what each record says (its frame count and how many it
// kept), so they agree as long as every transient record of the ring passes through both in the
// same order: the producer's at publication, the drain's at expansion (or when it skips the
// record). Producer and drain each own their copy; they never touch the other's.
#pragma once

#include <emmintrin.h>

#include <cstdint>

#include "tracer/unwind/walk_memo.h"

namespace rtrace::tracer {

struct SharedFrames {
  // Backtraces deeper than this always keep all their frames (and forget the shared ones).
  static constexpr std::uint32_t kMaxShared = 32;

  std::uint32_t count = 0;  // frames of the last record; 0: none to share
  std::uintptr_t frames[kMaxShared] = {};
  // Producer: where a backtrace of up to kMaxShared frames is walked to when it is not one the
  // walk memo remembers (capture_detail::capture, in place): thread-private, warm; a frame shared
  // is then never written to ring memory.
  std::uintptr_t walked[kMaxShared] = {};
  // Producer: the walk memo's stamp (WalkMemo::Entry::stamp) of the frames the last record had
  // when they came from the memo (keep_remembered); 0: not known so.
  std::uint64_t stamp = 0;

  // Producer: the record at whose frames `record_frames` a backtrace of `walked_count` frames
  // (at `backtrace`) goes keeps those before the longest run of trailing frames equal to the last
  // record's; copies them there; returns how many. Then they are the last record's frames.
  // Inline: on every transfer's path.
  std::uint32_t keep(const std::uintptr_t* backtrace, std::uint32_t walked_count,
                     std::uintptr_t* record_frames) {
    std::uint32_t kept = walked_count;
    if (walked_count == count) {
      // Four frames per comparison (the run is most of the backtrace), then within the four
      // that differ (or the fewer left), the upper two, then the odd one.
      while (kept >= 4 && same_quad(backtrace + kept - 4, frames + kept - 4)) {
        kept -= 4;
      }
      if (kept >= 2 && same_pair(backtrace + kept - 2, frames + kept - 2)) {
        kept -= 2;
      }
      if (kept > 0 && backtrace[kept - 1] == frames[kept - 1]) {
        --kept;
      }
    }
    copy_kept(backtrace, kept, record_frames);
    count = walked_count;
    stamp = 0;
    return kept;
  }

  // Producer: keep, for a backtrace the walk memo remembered (`entry`'s frames). A loop calling
  // from a few places over a few stacks follows one memo entry's frames with another's again
  // and again: how many frames the pair keeps is known from the last time (Entry::after),
  // so only those are copied, none compared. Exact: a stamp names an entry's frames for good
  // (WalkMemo::keep gives a new one whenever they change), so the same pair of stamps is the
  // same pair of backtraces, and keep is a function of the pair as long as the last record's
  // count is its frames' (checked every time: EventRing::reset forgets the count, not the
  // stamp). The same count as keep's, test ABacktraceFromTheWalkMemoKeepsWhatComparingKeeps.
  // Inline: on every transfer's path.
  std::uint32_t keep_remembered(WalkMemo::Entry& entry, std::uintptr_t* record_frames) {
    const std::uint64_t before = stamp;
    const std::uint32_t walked_count = entry.frame_count;
    std::uint32_t kept = 0;
    const bool comparable = before != 0 && count == walked_count;
    WalkMemo::Entry::After& after = entry.after_for(before);
    if (comparable && after.stamp == before) {
      kept = static_cast<std::uint32_t>(after.kept);
      copy_kept(entry.frames, kept, record_frames);
    } else {
      kept = keep(entry.frames, walked_count, record_frames);
      // Not after another count: after a ring's reset (count 0) the stamp is the one before.
      after.stamp = comparable ? before : 0;
      after.kept = kept;
    }
    stamp = entry.stamp;
    return kept;
  }

  // Producer: the `kept` leading frames of `backtrace` go to the record and become the last
  // record's.
  void copy_kept(const std::uintptr_t* backtrace, std::uint32_t kept,
                 std::uintptr_t* record_frames) {
    for (std::uint32_t i = 0; i < kept; ++i) {
      frames[i] = backtrace[i];
      record_frames[i] = backtrace[i];
    }
  }

  // Producer: a backtrace deeper than kMaxShared, walked straight into its record, keeps all of
  // its `walked_count` frames and leaves none to share.
  std::uint32_t keep_all(std::uint32_t walked_count) {
    count = 0;
    stamp = 0;
    return walked_count;
  }

  // Whether the two words at `a` equal those at `b` (one 16-byte comparison).
  static bool same_pair(const std::uintptr_t* a, const std::uintptr_t* b) {
    return _mm_movemask_epi8(pair_equal(a, b)) == 0xffff;
  }

  // Whether the four words at `a` equal those at `b` (two comparisons, one test).
  static bool same_quad(const std::uintptr_t* a, const std::uintptr_t* b) {
    return _mm_movemask_epi8(_mm_and_si128(pair_equal(a, b), pair_equal(a + 2, b + 2))) == 0xffff;
  }

  // All ones in the 32-bit lanes where the two words at `a` and those at `b` agree.
  static __m128i pair_equal(const std::uintptr_t* a, const std::uintptr_t* b) {
    return _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a)),
                           _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
  }

  // Drain: the whole `record_count` frames of a record that kept `kept` of them at `stored`;
  // null when the record cannot have been written so (more kept than it has, or frames to share
  // that this copy does not have). Taking the same record twice gives the same frames.
  const std::uintptr_t* restore(const std::uintptr_t* stored, std::uint32_t record_count,
                                std::uint32_t kept) {
    if (kept > record_count || (kept < record_count && record_count != count)) {
      return nullptr;
    }
    if (record_count > kMaxShared) {
      count = 0;
      return stored;
    }
    for (std::uint32_t i = 0; i < kept; ++i) {
      frames[i] = stored[i];
    }
    count = record_count;
    return frames;
  }
};

}  // namespace rtrace::tracer
