// The compact rtrace recording format: constants and the variable-length integer encoding,
// shared by everything that reads or writes it (the reader and writer of rtrace, and the tracer
// running inside a process). docs/format.md describes the format; this file is its summary:
//
//   file    = magic (8 bytes) major (1 byte) minor (1 byte) record*
//   record  = tag (1 byte) length (varint) payload (`length` bytes)
//           | 0x80|flags (1 byte) call fields   (version 3: a CALL, no length)
//   varint  = unsigned LEB128: 7 bits a byte, least significant first, high bit = more follow
//   zigzag  = a signed value v stored as the varint (v << 1) ^ (v >> 63)
//   string  = length (varint) bytes (no terminating NUL)
//
// Every field is a byte or a varint, so the format has no byte order.
// Header-only and free of allocation, so that the tracer can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rtrace::compact {

inline constexpr char kMagic[8] = {'\x89', 'R', 'T', 'C', '\r', '\n', '\x1a', '\n'};
inline constexpr std::size_t kMagicSize = sizeof kMagic;
// Version 2 writes CALL records with optional fields and resource references, version 3 writes
// them without tag and length, version 4 says which thread made them (THREAD) and counts the
// resource deltas and references per thread, version 5 writes a size equal to the thread's last
// one as 0, version 6 writes a STACK as the frames it adds to the outer frames of a stack written
// before (docs/format.md); readers read versions 1 to 5 too. Minor 1 adds LEAK_KINDS, which
// readers of 6.0 skip as an unknown tag; minor 2 the END reason "no space", which older readers
// refuse at that record, having read every record before it.
inline constexpr std::uint8_t kMajor = 6;
inline constexpr std::uint8_t kMinor = 2;
inline constexpr std::uint8_t kOldestMajor = 1;
inline constexpr std::size_t kFileHeaderSize = kMagicSize + 2;

// No record's payload is longer (a reader refuses longer ones as corrupt).
inline constexpr std::size_t kMaxPayload = std::size_t{16} << 20;
// The longest varint: 10 bytes hold 64 bits.
inline constexpr std::size_t kMaxVarint = 10;
// Tag and the longest length field the writers use (payloads below 2^35 bytes).
inline constexpr std::size_t kMaxRecordHeader = 1 + 5;

enum class Tag : std::uint8_t {
  Trace = 0x01,       // first record: machine, time unit, origin
  Process = 0x02,     // a traced process (sp-rtrace PINF)
  Module = 0x03,      // a tracing module (MINF)
  Mapping = 0x04,     // an executable mapping (MMAP)
  Context = 0x05,     // a call context (CTXR)
  Resource = 0x06,    // a resource type (RESR)
  Function = 0x07,    // defines the next function-name id
  Stack = 0x08,       // defines the next stack id: a backtrace written once
  Call = 0x09,        // a call (CALL + ARGS + BTRC)
  HeapInfo = 0x0A,    // heap statistics (HINF)
  Output = 0x0B,      // the recorder's output settings (OCFG)
  Attachment = 0x0C,  // a file bundled with the trace (FILE)
  Reset = 0x0D,       // forget every id of one table defined so far
  End = 0x0E,         // end of trace: why it ended, peak and final RSS, when
  Note = 0x0F,        // a remark of the writer for whoever reads the trace (version 2)
  Thread = 0x10,      // the next calls are a thread's: its state slot and id (version 4)
  LeakKinds = 0x11,   // the leak check's verdict on blocks still allocated (version 6.1)
};

// LEAK_KINDS: the kind of each block, valgrind memcheck's leak kinds in its order.
inline constexpr std::uint8_t kLeakDefinite = 1;
inline constexpr std::uint8_t kLeakIndirect = 2;
inline constexpr std::uint8_t kLeakPossible = 3;
inline constexpr std::uint8_t kLeakReachable = 4;
inline constexpr std::uint8_t kLastLeakKind = 4;

// PROCESS: the flags of its optional command line (after the name, when the record goes on).
inline constexpr std::uint64_t kCommandLinePresent = 0x1;
inline constexpr std::uint64_t kCommandLineCut = 0x2;  // later arguments were left out

// RESET: which table starts again from id 1.
enum class Table : std::uint8_t { Functions = 1, Stacks = 2 };

// CALL: the low bits of the first byte are the call kind (the model's CallKind values).
inline constexpr std::uint8_t kCallKindMask = 0x07;
inline constexpr std::uint8_t kCallHasArguments = 0x08;
// Version 2: the resource is a reference to an earlier call's (kResourceWindow below); the
// timestamp, the resource type and context are written only when they differ from the previous
// call's.
inline constexpr std::uint8_t kCallResourceReference = 0x10;
inline constexpr std::uint8_t kCallHasTimestamp = 0x20;
inline constexpr std::uint8_t kCallHasTypeAndContext = 0x40;
inline constexpr std::uint8_t kCallFlagsVersion1 = kCallKindMask | kCallHasArguments;
inline constexpr std::uint8_t kCallFlagsVersion2 =
    kCallFlagsVersion1 | kCallResourceReference | kCallHasTimestamp | kCallHasTypeAndContext;
// A release refers to one of the last kResourceWindow allocations, an allocation to one of the
// last kResourceWindow releases (so a reader keeps two rings of this many resource ids).
inline constexpr std::uint64_t kResourceWindow = std::uint64_t{1} << 16;
inline constexpr std::uint8_t kReleaseKind = 1;
inline constexpr std::uint8_t kAllocationKind = 2;
// Version 3: a record whose first byte has this bit set is a CALL without tag and length: the
// byte's low 7 bits are its flags, the call's fields follow. Two bytes fewer a call, and above
// all no length byte that changes with the fields: zstd finds the repeats again (docs/format.md).
inline constexpr std::uint8_t kBareCall = 0x80;
inline constexpr std::uint8_t kFirstBareMajor = 3;
// Version 4: THREAD records; each of kThreadSlots slots has its own resource delta base and its
// own numbering of allocations and releases for references (the threads' calls interleave in the
// merged stream: counted over it, a release referred 128-255 allocations back and a resource
// delta spanned two threads' heaps). A slot is the writer's (the tracer's: its ring), so a
// reader's state stays bounded whatever thread ids a file names.
inline constexpr std::uint8_t kFirstThreadMajor = 4;
inline constexpr std::uint32_t kThreadSlots = 1024;
// A switch to another slot whose thread is the same as before is a single byte (the tracer's
// threads' calls interleave in runs of 2 to 10 calls, so a framed record of 3 bytes per switch
// was 6 % of the trace): a bare byte of call kind 7 (no call kind of the model) whose bits 3 to 6
// are the slot, or kThreadSwitchVarint and the slot as a varint after it.
inline constexpr std::uint8_t kThreadSwitchKind = 7;
inline constexpr unsigned kThreadSwitchShift = 3;
inline constexpr std::uint8_t kThreadSwitchVarint = 15;
// Version 4: a transient allocation, one record for an allocation released at once (the
// memtransfer module's every call: the writer's work and the trace's bytes for the release were
// as much as for the allocation). Its fields are the allocation's; the release that follows it has
// the same function, type, context, timestamp, resource id and thread, size 0, no arguments, and
// no backtrace (kind 5) or the allocation's (kind 6). Both count as their kinds do for references.
inline constexpr std::uint8_t kTransientKind = 5;
inline constexpr std::uint8_t kTransientWithReleaseStackKind = 6;
// Version 4: a CALL's `stack` among the last kRecentStacks stacks of its slot's calls is written
// as its place there (1: the latest), any other as its id + kRecentStacks: a thread repeats a few
// stacks, but interleaved with the other threads' the global ids looked random to zstd.
inline constexpr std::uint32_t kRecentStacks = 8;
// Version 5: a CALL's `size` is written against its slot's size base, the last nonzero size of
// the slot's calls (size_field below): a memset after a memcpy of the same bytes, a copy into a
// block just allocated, a block freed and allocated again take one byte, and zstd no longer
// meets a random size twice (it compresses the memtransfer churn's trace 1.7 times as fast).
inline constexpr std::uint8_t kFirstSizeBaseMajor = 5;
// Version 5: END goes on with the wall clock when the trace ended (seconds since the Epoch as a
// zigzag varint, microseconds).
inline constexpr std::uint8_t kFirstWallClockMajor = 5;

// Version 6: a STACK record names a stack written before whose outermost frames it shares
// (`shared` of them, the callers both stacks come through) and writes only its other, inner
// frames: a program with many call paths reaches most of them through callers its other paths
// took (a tree of calls: 2^18 paths 22 frames deep are 2^19 distinct caller/callee pairs), and
// whole stacks written one after the other were three quarters of such a trace's bytes. A STACK
// also makes its stack the current slot's latest (as a CALL naming it does), so that the call
// after it names it in one byte.
inline constexpr std::uint8_t kFirstSharedStackMajor = 6;
// The writers look for shared outer frames among the outermost kMaxSharedFrames of a stack (a
// reader takes any count up to the base stack's).
inline constexpr std::uint32_t kMaxSharedFrames = 256;

// TRACE: bits of the machine flags and of the applied stages.
inline constexpr std::uint64_t kBigEndianMachine = 0x1;
inline constexpr std::uint64_t kAppliedLeaks = 0x1;
inline constexpr std::uint64_t kAppliedCompress = 0x2;
inline constexpr std::uint64_t kAppliedResolve = 0x4;

// END: why the trace ended.
enum class EndReason : std::uint8_t {
  Unknown = 0,    // not known (a trace converted from a format without this record)
  Exit = 1,       // exit() or a return from main
  ToggleOff = 2,  // tracing toggled off
  FastExit = 3,   // _exit() or quick_exit()
  Crash = 4,      // a crash signal; the record names it
  Exec = 5,       // the process called exec
  NoSpace = 6,    // no space left for the trace: tracing stopped, the program ran on
};
inline constexpr std::uint8_t kLastEndReason = 6;

constexpr std::uint64_t zigzag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}

constexpr std::int64_t unzigzag(std::uint64_t value) {
  return static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
}

// The zigzag varint of `value - previous`, in two's complement (wraps around, never overflows).
constexpr std::uint64_t delta(std::uint64_t value, std::uint64_t previous) {
  return zigzag(static_cast<std::int64_t>(value - previous));
}

constexpr std::uint64_t undelta(std::uint64_t stored, std::uint64_t previous) {
  return previous + static_cast<std::uint64_t>(unzigzag(stored));
}

// Version 5's size field: 0 for the slot's size base, a smaller size + 1, a larger one as it is.
// A bijection, so every size has a field and every field a size (no overflow at 2^64 - 1).
constexpr std::uint64_t size_field(std::uint64_t size, std::uint64_t base) {
  return size == base ? 0 : size < base ? size + 1 : size;
}

constexpr std::uint64_t size_of_field(std::uint64_t field, std::uint64_t base) {
  return field == 0 ? base : field <= base ? field - 1 : field;
}

// The slot's size base after a call of `size`: a release (size 0) leaves it as it was.
constexpr std::uint64_t next_size_base(std::uint64_t base, std::uint64_t size) {
  return size != 0 ? size : base;
}

constexpr std::size_t varint_size(std::uint64_t value) {
  std::size_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

// Writes `value` at `out` (room for varint_size(value) bytes); returns the end.
inline char* put_varint(char* out, std::uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<char>(value);
  return out;
}

inline char* put_string(char* out, const char* text, std::size_t length) {
  out = put_varint(out, length);
  if (length > 0) {
    std::memcpy(out, text, length);
  }
  return out + length;
}

}  // namespace rtrace::compact
