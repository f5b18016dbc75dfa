// What the apitrace decoder yields: one traced call with its arguments as a small value tree.
//
// These types belong to the apitrace format alone (they mirror its grammar, docs/man
// rtrace-apitrace(1)); adapters turn them into rtrace's common trace model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtrace::apitrace {

// Signatures are defined once in the stream (at their first use) and then referred to by id.
struct FunctionSignature {
  std::string name;
  std::vector<std::string> arg_names;
  std::uint32_t flags = 0;  // CallFlag bits known from the name (call_flags.h)
};

struct EnumSignature {
  std::vector<std::pair<std::string, std::int64_t>> values;
};

struct BitmaskSignature {
  std::vector<std::pair<std::string, std::uint64_t>> flags;
};

struct StructSignature {
  std::string name;
  std::vector<std::string> member_names;
};

// One backtrace frame; every detail is optional in the stream.
struct StackFrame {
  std::optional<std::string> module;
  std::optional<std::string> function;
  std::optional<std::string> file;
  std::optional<std::uint64_t> line;
  std::optional<std::uint64_t> offset;
};

enum class ValueKind : std::uint8_t {
  Null,
  Bool,
  SInt,
  UInt,
  Float,
  Double,
  String,
  WString,
  Blob,
  Enum,
  Bitmask,
  Array,
  Struct,
  Pointer,
  Repr,
};

// A node of a call's value tree. Children (array elements, struct members, the two halves of a
// repr) are consecutive nodes starting at `first`; string and blob bytes live in the call's
// byte store, wide characters in its unit store, also from `first`.
struct Value {
  ValueKind kind = ValueKind::Null;
  std::uint32_t size = 0;   // children, bytes or wide units
  std::uint32_t first = 0;  // index of the first child, byte or unit
  union {
    bool boolean;
    std::int64_t sint;   // SInt, Enum
    std::uint64_t uint;  // UInt, Bitmask, Pointer
    float single;        // Float
    double real;         // Double
  } number{.uint = 0};
  union {
    const EnumSignature* enumeration;
    const BitmaskSignature* bitmask;
    const StructSignature* structure;
  } signature{.enumeration = nullptr};
};

enum CallFlag : std::uint32_t {
  kFlagFake = 1U << 0,           // injected by apitrace, not made by the program (FLAGS detail)
  kFlagIncomplete = 1U << 1,     // entered but never left (the program was killed)
  kFlagVerbose = 1U << 2,        // hidden by `dump` unless -v
  kFlagNoSideEffects = 1U << 3,  // a query: printed without bold
  kFlagEndFrame = 1U << 4,       // ends a frame (SwapBuffers and friends)
  kFlagRender = 1U << 5,         // draws
  kFlagSwapRenderTarget = 1U << 6,
  kFlagMarker = 1U << 7,
};

struct Call {
  std::uint64_t number = 0;
  std::uint64_t thread = 0;
  const FunctionSignature* signature = nullptr;
  std::uint32_t flags = 0;
  std::vector<std::int32_t> args;  // value index per argument number; -1 = not in the stream
  std::int32_t ret = -1;           // value index of the return value; -1 = none
  std::vector<const StackFrame*> backtrace;
  bool has_backtrace = false;

  // The value tree and what its nodes point into.
  std::vector<Value> values;
  std::string bytes;
  std::vector<std::uint32_t> units;

  const Value& value(std::int32_t index) const { return values[static_cast<std::size_t>(index)]; }
  const Value& child(const Value& parent, std::uint32_t i) const {
    return values[parent.first + i];
  }
  std::string_view text(const Value& v) const { return {bytes.data() + v.first, v.size}; }
  std::span<const std::uint32_t> wide(const Value& v) const {
    return {units.data() + v.first, v.size};
  }

  void clear() {
    signature = nullptr;
    flags = 0;
    args.clear();
    ret = -1;
    backtrace.clear();
    has_backtrace = false;
    values.clear();
    bytes.clear();
    units.clear();
  }
};

}  // namespace rtrace::apitrace
