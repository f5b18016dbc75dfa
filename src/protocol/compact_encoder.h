// Encodes records of the compact format (compact_protocol.h, docs/format.md) into an output
// the caller provides, deduplicating backtraces and function names through tables the caller
// provides too. Header-only and free of allocation: the tracer uses it with a static buffer and
// mmap'd tables, rtrace's writer with an OutputStream and hash maps.
//
//   Out:    char* reserve(std::size_t bytes)  room for `bytes` bytes, null when impossible
//           void commit(std::size_t bytes)    the first `bytes` of it are written
//   Tables: std::uint64_t stack_id(const std::uint64_t* frames, std::uint32_t count, bool& fresh)
//           std::uint64_t function_id(const char* name, std::size_t length, bool& fresh)
//                         ids count 1, 2, 3... in order of first use (`fresh` then); 0 when the
//                         table is full: the encoder then writes RESET and calls clear()
//           void clear(Table table)  forget every id of that table
//           std::uint64_t stack_with_outer(std::uint64_t key)
//                         the id of a stack written since the stacks were last cleared whose
//                         outer frames have `key` (added with add_outer), 0 when none
//           void add_outer(std::uint64_t key, std::uint64_t stack)
//                         stack `stack` has outer frames of `key` (kept unless another stack
//                         has them already or the table has no room)
//           const std::uint64_t* stack_frames(std::uint64_t stack, std::uint32_t& count)
//                         the frames of a stack written since the stacks were last cleared,
//                         null when it is not known
//           std::uint64_t* resource_slot(std::uint64_t resource_id)
//                         the value the encoder keeps for a resource id (0 for a new one), or
//                         null when the table has no room: the call is then written without a
//                         reference. Clearing it is the table's own business (no record says so).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "protocol/compact_protocol.h"

namespace rtrace::compact {

struct Text {
  const char* data = nullptr;
  std::size_t size = 0;
};

// PROCESS's optional command line (docs/format.md): the arguments, `cut` when the tracer kept only
// those that fit its buffer.
struct CommandLineFields {
  const Text* arguments = nullptr;
  std::uint32_t count = 0;
  bool cut = false;
};

struct CallFields {
  std::uint8_t kind = 0;  // the model's CallKind value
  Text function;
  std::uint32_t resource_type = 0;
  std::uint32_t context = 0;
  std::uint64_t timestamp = 0;  // in the trace's time unit
  std::uint64_t resource_id = 0;
  std::uint64_t size = 0;
  const std::uint64_t* frames = nullptr;
  std::uint32_t frame_count = 0;
  const Text* arguments = nullptr;  // name, value, name, value...
  std::uint32_t argument_count = 0;
};

// One block of a LEAK_KINDS record: its resource id (address) and its kLeak* kind.
struct LeakKindEntry {
  std::uint64_t resource_id = 0;
  std::uint8_t kind = 0;
};

// The most entries one LEAK_KINDS record holds (a writer splits longer lists): 22 bytes each at
// most, so that a record fits the tracer's output buffer.
inline constexpr std::uint32_t kMaxLeakKindEntries = 16384;

struct TraceFields {
  Text arch;
  std::uint8_t pointer_size = 8;
  bool big_endian = false;
  std::uint64_t time_unit_ns = 1;
  Text origin;
  std::uint64_t applied = 0;  // kApplied* bits
};

struct EndFields {
  EndReason reason = EndReason::Unknown;
  std::uint32_t signal = 0;
  std::uint64_t peak_rss = 0;
  std::uint64_t end_rss = 0;
  std::uint64_t timestamp = 0;    // in the trace's time unit
  std::int64_t wall_seconds = 0;  // the wall clock when the trace ended (version 5); 0: unknown
  std::uint32_t wall_microseconds = 0;
};

// The longest string a writer stores; longer ones are cut (no tracer string comes near it).
inline constexpr std::size_t kMaxWrittenString = std::size_t{1} << 20;
// The most frames one stack holds when written.
inline constexpr std::uint32_t kMaxWrittenFrames = 65536;

template <class Out, class Tables>
class CompactEncoder {
 public:
  constexpr CompactEncoder(Out& out, Tables& tables) : out_(out), tables_(tables) {}

  // A new trace in the same encoder: the delta bases start again from 0 (the caller clears
  // its tables).
  void restart() {
    previous_timestamp_ = 0;
    previous_frame_ = 0;
    previous_type_ = 0;
    previous_context_ = 0;
    for (ThreadState& state : threads_) {
      state = {};
    }
    slot_ = 0;
  }

  void file_header() {
    char* p = out_.reserve(kFileHeaderSize);
    if (p == nullptr) {
      return;
    }
    std::memcpy(p, kMagic, kMagicSize);
    p[kMagicSize] = static_cast<char>(kMajor);
    p[kMagicSize + 1] = static_cast<char>(kMinor);
    out_.commit(kFileHeaderSize);
  }

  void trace(const TraceFields& f) {
    Record r(*this, Tag::Trace, string_bound(f.arch) + string_bound(f.origin) + 4 * kMaxVarint);
    r.string(f.arch);
    r.varint(f.pointer_size);
    r.varint(f.big_endian ? kBigEndianMachine : 0);
    r.varint(f.time_unit_ns);
    r.string(f.origin);
    r.varint(f.applied);
  }

  // `depth_plus_one`: the backtrace depth + 1; 0 when unknown. `command_line`: none when null.
  void process(std::uint32_t pid, std::uint64_t start_seconds, std::uint32_t start_microseconds,
               std::uint64_t depth_plus_one, Text name,
               const CommandLineFields* command_line = nullptr) {
    std::size_t bound = string_bound(name) + 6 * kMaxVarint;
    for (std::uint32_t i = 0; command_line != nullptr && i < command_line->count; ++i) {
      bound += string_bound(command_line->arguments[i]);
    }
    Record r(*this, Tag::Process, bound);
    r.varint(pid);
    r.varint(start_seconds);
    r.varint(start_microseconds);
    r.varint(depth_plus_one);
    r.string(name);
    if (command_line != nullptr) {
      r.varint(kCommandLinePresent | (command_line->cut ? kCommandLineCut : 0));
      r.varint(command_line->count);
      for (std::uint32_t i = 0; i < command_line->count; ++i) {
        r.string(command_line->arguments[i]);
      }
    }
  }

  void module(std::uint32_t id, std::uint32_t major, std::uint32_t minor, Text name) {
    Record r(*this, Tag::Module, string_bound(name) + 3 * kMaxVarint);
    r.varint(id);
    r.varint(major);
    r.varint(minor);
    r.string(name);
  }

  void mapping(std::uint64_t from, std::uint64_t to, Text path) {
    Record r(*this, Tag::Mapping, string_bound(path) + 2 * kMaxVarint);
    r.varint(from);
    r.varint(to - from);
    r.string(path);
  }

  void context(std::uint32_t id, Text name) {
    Record r(*this, Tag::Context, string_bound(name) + kMaxVarint);
    r.varint(id);
    r.string(name);
  }

  void resource(std::uint32_t id, std::uint32_t flags, Text type, Text description) {
    Record r(*this, Tag::Resource, string_bound(type) + string_bound(description) + 2 * kMaxVarint);
    r.varint(id);
    r.varint(flags);
    r.string(type);
    r.string(description);
  }

  // heap bottom, heap top, lowest block, highest block, then the ten mallinfo fields.
  static constexpr std::size_t kHeapFields = 14;
  void heap_info(const std::uint64_t (&fields)[kHeapFields]) {
    Record r(*this, Tag::HeapInfo, kHeapFields * kMaxVarint);
    for (const std::uint64_t field : fields) {
      r.varint(field);
    }
  }

  void output_settings(Text path, Text options) {
    Record r(*this, Tag::Output, string_bound(path) + string_bound(options));
    r.string(path);
    r.string(options);
  }

  void attachment(Text name, Text path) {
    Record r(*this, Tag::Attachment, string_bound(name) + string_bound(path));
    r.string(name);
    r.string(path);
  }

  // The next calls are thread `tid`'s, counted in state slot `slot` (docs/format.md, THREAD;
  // slots past the last share it). Writes THREAD only when the slot or the slot's thread changes:
  // before the first, calls are slot 0's, of thread 0 (unknown).
  void thread(std::uint32_t slot, std::uint64_t tid) {
    slot = slot < kThreadSlots ? slot : kThreadSlots - 1;
    ThreadState& state = threads_[slot];
    if (slot == slot_ && tid == state.tid) {
      return;
    }
    slot_ = slot;
    if (tid == state.tid) {  // a bare switch
      const bool inline_slot = slot < kThreadSwitchVarint;
      Record r(*this,
               static_cast<std::uint8_t>(kBareCall | kThreadSwitchKind |
                                         (inline_slot ? slot : kThreadSwitchVarint)
                                             << kThreadSwitchShift),
               kMaxVarint);
      if (!inline_slot) {
        r.varint(slot);
      }
      return;
    }
    Record r(*this, Tag::Thread, 2 * kMaxVarint);
    r.varint(std::uint64_t{slot} << 1 | 1);
    r.varint(tid);
    state.tid = tid;
  }

  void call(const CallFields& f) {
    const std::uint8_t kind = f.kind & kCallKindMask;
    write_call(f, kind, kind);
  }

  // `f`, an allocation, and at once its release (version 4's transient CALL): the release has no
  // backtrace, or with `release_has_stack` the allocation's.
  void transient(const CallFields& f, bool release_has_stack) {
    std::uint64_t* entry = write_call(
        f, release_has_stack ? kTransientWithReleaseStackKind : kTransientKind, kAllocationKind);
    refer(kReleaseKind, entry);  // the release, counted as a reader counts it
  }

  // A remark for whoever reads the trace (NOTE).
  void note(Text text) {
    Record r(*this, Tag::Note, string_bound(text));
    r.string(text);
  }

  // LEAK_KINDS: `count` blocks of process `pid` (at most kMaxLeakKindEntries), ascending by
  // resource id; each id is written as its delta from the one before (the first from 0). A
  // record without entries still says that the process's blocks were checked (none was left).
  void leak_kinds(std::uint32_t pid, const LeakKindEntry* entries, std::uint32_t count) {
    Record r(*this, Tag::LeakKinds, (2 + 2 * std::size_t{count}) * kMaxVarint);
    r.varint(pid);
    r.varint(count);
    std::uint64_t previous = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
      r.varint(entries[i].resource_id - previous);
      r.varint(entries[i].kind);
      previous = entries[i].resource_id;
    }
  }

  void end(const EndFields& f) {
    Record r(*this, Tag::End, 7 * kMaxVarint);
    r.varint(static_cast<std::uint8_t>(f.reason));
    r.varint(f.signal);
    r.varint(f.peak_rss);
    r.varint(f.end_rss);
    r.varint(f.timestamp);
    r.varint(zigzag(f.wall_seconds));
    r.varint(f.wall_microseconds);
  }

 private:
  // A CALL record of `written_kind` for `f`, its resource referred to as one of `kind`'s; returns
  // the resource's table entry (null: not kept or not looked up).
  std::uint64_t* write_call(const CallFields& f, std::uint8_t written_kind, std::uint8_t kind) {
    bool fresh = false;
    const std::uint64_t function = with_room(Table::Functions, [&] {
      return tables_.function_id(f.function.data, cut(f.function.size), fresh);
    });
    if (fresh) {
      Record r(*this, Tag::Function, string_bound(f.function));
      r.string(f.function);
    }
    const std::uint32_t frame_count =
        f.frame_count < kMaxWrittenFrames ? f.frame_count : kMaxWrittenFrames;
    std::uint64_t stack = 0;
    if (frame_count > 0) {
      fresh = false;
      stack =
          with_room(Table::Stacks, [&] { return tables_.stack_id(f.frames, frame_count, fresh); });
      if (fresh) {
        write_stack(stack, f.frames, frame_count);
      }
    }
    const std::uint32_t argument_count = fitting_arguments(f);
    std::size_t bound = 1 + 7 * kMaxVarint;
    for (std::uint32_t i = 0; i < 2 * argument_count; ++i) {
      bound += string_bound(f.arguments[i]);
    }
    std::uint64_t* entry = nullptr;
    const std::uint64_t reference = resource_reference(kind, f.resource_id, entry);
    const bool type_and_context =
        f.resource_type != previous_type_ || f.context != previous_context_;
    const bool timestamp = f.timestamp != previous_timestamp_;
    // Version 3: the flags are the record's first byte, with kBareCall; no length follows.
    Record r(*this,
             static_cast<std::uint8_t>(kBareCall | written_kind |
                                       (argument_count > 0 ? kCallHasArguments : 0) |
                                       (reference > 0 ? kCallResourceReference : 0) |
                                       (timestamp ? kCallHasTimestamp : 0) |
                                       (type_and_context ? kCallHasTypeAndContext : 0)),
             bound);
    r.varint(function);
    if (type_and_context) {
      r.varint(f.resource_type);
      r.varint(f.context);
    }
    if (timestamp) {
      r.varint(delta(f.timestamp, previous_timestamp_));
    }
    ThreadState& state = threads_[slot_];
    r.varint(reference > 0 ? reference : delta(f.resource_id, state.previous_resource));
    r.varint(size_field(f.size));
    r.varint(stack_field(stack));
    if (argument_count > 0) {
      r.varint(argument_count);
      for (std::uint32_t i = 0; i < 2 * argument_count; ++i) {
        r.string(f.arguments[i]);
      }
    }
    previous_timestamp_ = f.timestamp;
    state.previous_resource = f.resource_id;
    previous_type_ = f.resource_type;
    previous_context_ = f.context;
    return entry;
  }

  // One record: reserves room for the tag, the longest length field and `bound` payload bytes.
  // The payload is written after a 1-byte length field, which holds every payload below 128
  // bytes (almost every record); a longer one is moved up (on destruction) to make room for its
  // longer length field. A bare record (version 3's CALL) is its first byte and the fields.
  class Record {
   public:
    Record(CompactEncoder& encoder, Tag tag, std::size_t bound)
        : out_(encoder.out_), start_(out_.reserve(kMaxRecordHeader + bound)) {
      if (start_ != nullptr) {
        start_[0] = static_cast<char>(tag);
        payload_ = start_ + 2;
        pos_ = payload_;
      }
    }
    Record(CompactEncoder& encoder, std::uint8_t bare_first_byte, std::size_t bound)
        : out_(encoder.out_), start_(out_.reserve(1 + bound)), bare_(true) {
      if (start_ != nullptr) {
        start_[0] = static_cast<char>(bare_first_byte);
        payload_ = start_ + 1;
        pos_ = payload_;
      }
    }
    Record(const Record&) = delete;
    Record& operator=(const Record&) = delete;
    ~Record() {
      if (start_ == nullptr) {
        return;
      }
      const auto length = static_cast<std::size_t>(pos_ - payload_);
      if (bare_) {
        out_.commit(1 + length);
        return;
      }
      const std::size_t header = 1 + varint_size(length);
      if (header > 2) {
        std::memmove(start_ + header, payload_, length);
      }
      put_varint(start_ + 1, length);
      out_.commit(header + length);
    }

    void byte(std::uint8_t value) {
      if (pos_ != nullptr) {
        *pos_++ = static_cast<char>(value);
      }
    }
    void varint(std::uint64_t value) {
      if (pos_ != nullptr) {
        pos_ = put_varint(pos_, value);
      }
    }
    void string(Text text) {
      if (pos_ != nullptr) {
        pos_ = put_string(pos_, text.data, cut(text.size));
      }
    }

   private:
    Out& out_;
    char* start_;
    char* payload_ = nullptr;
    char* pos_ = nullptr;
    bool bare_ = false;
  };

  static std::size_t cut(std::size_t length) {
    return length < kMaxWrittenString ? length : kMaxWrittenString;
  }
  static std::size_t string_bound(Text text) { return kMaxVarint + cut(text.size); }

  // Asks a table for an id; when it is full, forgets every id (RESET) and asks again.
  template <class Lookup>
  std::uint64_t with_room(Table table, Lookup lookup) {
    const std::uint64_t id = lookup();
    if (id != 0) {
      return id;
    }
    {
      Record reset(*this, Tag::Reset, kMaxVarint);
      reset.varint(static_cast<std::uint8_t>(table));
    }
    tables_.clear(table);
    if (table == Table::Stacks) {
      forget_recent_stacks();  // their ids are gone, as the reader's
    }
    return lookup();
  }

  // A release names the allocation that returned its resource by how many allocations of its
  // thread slot ago it was (1: the latest), an allocation a resource released before by how many
  // releases ago; 0 when there is none within kResourceWindow or when another slot's call named
  // it last. The table remembers, per resource id, the number of the last allocation or release
  // that named it (value << kSlotShift), its slot and whether it was a release (bit 0).
  // A CALL's `stack` field (version 4): the stack's place among its slot's recent ones, or its
  // id after them; the stack becomes the slot's latest.
  std::uint64_t stack_field(std::uint64_t stack) {
    if (stack == 0) {
      return 0;
    }
    const std::uint32_t place = make_latest(stack);
    return place < kRecentStacks ? place + 1 : stack + kRecentStacks;
  }

  // `stack` becomes the current slot's latest stack; returns where it was among them
  // (kRecentStacks: not there, the oldest goes). A STACK record does it too (version 6): the
  // call that follows it names the new stack as the latest, one byte instead of an id's three
  // when a program has many stacks.
  std::uint32_t make_latest(std::uint64_t stack) {
    std::uint64_t* recent = threads_[slot_].recent_stacks;
    std::uint32_t place = 0;
    while (place < kRecentStacks && recent[place] != stack) {
      ++place;
    }
    for (std::uint32_t k = place < kRecentStacks ? place : kRecentStacks - 1; k > 0; --k) {
      recent[k] = recent[k - 1];
    }
    recent[0] = stack;
    return place;
  }

  // A CALL's `size` field (version 5): the slot's size base (its last nonzero size) is 0, a
  // smaller size is itself + 1, a larger one itself. A copy of a block just allocated, a memset
  // after a memcpy of the same bytes, a block freed and allocated again: one byte instead of the
  // size's two or three, and no repeat of a random value for zstd to find (docs/format.md).
  std::uint64_t size_field(std::uint64_t size) {
    std::uint64_t& base = threads_[slot_].size_base;
    const std::uint64_t field = compact::size_field(size, base);
    base = compact::next_size_base(base, size);
    return field;
  }

  void forget_recent_stacks() {
    for (ThreadState& state : threads_) {
      std::fill(std::begin(state.recent_stacks), std::end(state.recent_stacks), 0);
    }
  }

  // `entry`: the resource's table entry (null: not kept), for a transient CALL's release.
  std::uint64_t resource_reference(std::uint8_t kind, std::uint64_t resource_id,
                                   std::uint64_t*& entry) {
    if (kind != kAllocationKind && kind != kReleaseKind) {
      return 0;
    }
    entry = tables_.resource_slot(resource_id);
    return refer(kind, entry);
  }

  // The reference of a call of `kind` (an allocation or a release) to the resource whose table
  // entry is `entry` (null: not kept), which then names this call.
  std::uint64_t refer(std::uint8_t kind, std::uint64_t* entry) {
    const bool release = kind == kReleaseKind;
    ThreadState& state = threads_[slot_];
    const std::uint64_t count = release ? ++state.releases : ++state.allocations;
    if (entry == nullptr) {
      return 0;
    }
    const std::uint64_t seen = *entry;
    const std::uint64_t here = std::uint64_t{slot_} << 1 | (release ? 1 : 0);
    *entry = count << kSlotShift | here;
    // A release refers to an allocation of its slot and the other way round.
    if (seen == 0 || (seen & kSlotMask) != (here ^ 1)) {
      return 0;
    }
    const std::uint64_t other = release ? state.allocations : state.releases;
    const std::uint64_t back = other - (seen >> kSlotShift) + 1;
    return back <= kResourceWindow ? back : 0;
  }

  // STACK `stack` (version 6): its frame count, how many of its outer frames are those of an
  // earlier stack and which one (as how many ids before it), then its other frames as zigzag
  // deltas from the frame written before (across stacks: the frames of one program lie close
  // together). The new stack becomes the slot's latest.
  void write_stack(std::uint64_t stack, const std::uint64_t* frames, std::uint32_t count) {
    const OuterFrames outer = shared_outer_frames(stack, frames, count);
    Record r(*this, Tag::Stack, (3 + std::size_t{count}) * kMaxVarint);
    r.varint(count);
    r.varint(outer.count);
    if (outer.count > 0) {
      r.varint(stack - outer.stack);
    }
    for (std::uint32_t i = 0; i < count - outer.count; ++i) {
      r.varint(delta(frames[i], previous_frame_));
      previous_frame_ = frames[i];
    }
    make_latest(stack);
  }

  // The earlier stack that shares the most outer frames with the new stack `stack`, and how
  // many (of its outermost kMaxSharedFrames); then the new stack's outer frames that no stack
  // had before are its own for the stacks after it. Each run of outer frames of a written stack
  // is in the tables under a key that hashes them from the outermost in: when k outer frames are
  // there, so are fewer (those of the same stack, or of the stack it shared them with), so a
  // binary search over k finds the longest (a handful of lookups, not one per frame). The found
  // stack's frames are compared before they are used: a key is only a hash.
  struct OuterFrames {
    std::uint64_t stack = 0;
    std::uint32_t count = 0;
  };
  OuterFrames shared_outer_frames(std::uint64_t stack, const std::uint64_t* frames,
                                  std::uint32_t count) {
    const std::uint32_t reach = count < kMaxSharedFrames ? count : kMaxSharedFrames;
    std::uint64_t key = 0x243F6A8885A308D3ULL;
    for (std::uint32_t k = 1; k <= reach; ++k) {
      key = mix(key, frames[count - k]);
      outer_keys_[k] = key;
    }
    OuterFrames found;
    std::uint32_t low = 0;
    std::uint32_t high = reach;
    while (low < high) {
      const std::uint32_t middle = (low + high + 1) / 2;
      const std::uint64_t other = tables_.stack_with_outer(outer_keys_[middle]);
      if (other != 0) {
        low = middle;
        found = {other, middle};
      } else {
        high = middle - 1;
      }
    }
    if (found.count > 0 && !same_outer_frames(found, frames, count)) {
      found = {};
    }
    for (std::uint32_t k = found.count + 1; k <= reach; ++k) {
      tables_.add_outer(outer_keys_[k], stack);
    }
    return found;
  }

  // Whether the outer `outer.count` frames of `frames` are those of stack `outer.stack`.
  bool same_outer_frames(OuterFrames outer, const std::uint64_t* frames, std::uint32_t count) {
    std::uint32_t other_count = 0;
    const std::uint64_t* other = tables_.stack_frames(outer.stack, other_count);
    return other != nullptr && outer.count <= other_count &&
           std::equal(frames + (count - outer.count), frames + count,
                      other + (other_count - outer.count));
  }

  static constexpr std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
    hash = (hash ^ value) * 0x9E3779B97F4A7C15ULL;
    return hash ^ (hash >> 29);
  }

  // The arguments that keep the record under kMaxPayload.
  static std::uint32_t fitting_arguments(const CallFields& f) {
    std::size_t total = 1 + 7 * kMaxVarint + kMaxVarint;
    for (std::uint32_t i = 0; i < f.argument_count; ++i) {
      const Text* pair = f.arguments + 2 * std::size_t{i};
      total += string_bound(pair[0]) + string_bound(pair[1]);
      if (total > kMaxPayload) {
        return i;
      }
    }
    return f.argument_count;
  }

  // What each THREAD slot counts on its own (version 4).
  struct ThreadState {
    std::uint64_t tid = 0;
    std::uint64_t previous_resource = 0;
    std::uint64_t allocations = 0;                    // allocation calls written
    std::uint64_t releases = 0;                       // release calls written
    std::uint64_t recent_stacks[kRecentStacks] = {};  // stack ids, the latest first; 0: none
    std::uint64_t size_base = 0;                      // the last nonzero size (version 5)
  };
  // A resource table entry: the call's number above its slot and kind.
  static constexpr unsigned kSlotShift = 11;
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotShift) - 1;
  static_assert(kThreadSlots <= std::uint64_t{1} << (kSlotShift - 1));

  Out& out_;
  Tables& tables_;
  std::uint64_t previous_timestamp_ = 0;
  std::uint64_t previous_frame_ = 0;
  std::uint32_t previous_type_ = 0;
  std::uint32_t previous_context_ = 0;
  std::uint32_t slot_ = 0;  // the current THREAD slot
  ThreadState threads_[kThreadSlots] = {};
  // shared_outer_frames's keys: [k], that of a new stack's outer k frames.
  std::uint64_t outer_keys_[kMaxSharedFrames + 1] = {};
};

}  // namespace rtrace::compact
