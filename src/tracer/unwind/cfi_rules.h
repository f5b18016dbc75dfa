// The unwinding rule of one code address, read from the DWARF call frame information
// (.eh_frame) of the loaded object that holds it: where the caller's frame starts (the CFA) and
// where the return address and the caller's frame pointer were saved. Only the rules compilers
// emit for ordinary x86-64 frames are understood (CFA = rsp or rbp + offset, return address at
// CFA - 8, rbp saved at a CFA offset or left alone); anything else (expressions, signal frames,
// realigned stacks, code without call frame information) is `Unknown`, and the caller unwinds
// that stack with libunwind instead.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

struct FrameRule {
  enum class Kind : std::uint8_t {
    Unknown,    // not understood here: use libunwind
    Standard,   // step with the fields below
    Outermost,  // the return address is undefined: the stack ends here (_start, a thread's start)
  };
  Kind kind = Kind::Unknown;
  bool cfa_from_rbp = false;  // CFA = rbp + cfa_offset, else rsp + cfa_offset
  bool rbp_saved = false;     // the caller's rbp is at CFA + rbp_offset, else rbp is unchanged
  std::int32_t cfa_offset = 0;
  std::int32_t rbp_offset = 0;
};

// The rule in effect at `pc`: the address of the instruction being executed (the innermost
// frame), or a return address minus one (a caller, which is inside its call instruction).
// Never allocates and takes no lock (_dl_find_object).
FrameRule find_frame_rule(std::uintptr_t pc);

}  // namespace rtrace::tracer
