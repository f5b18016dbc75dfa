// The leak check (leak-check=1): when a trace ends by exit or by a toggle, every block still
// allocated (output/live_blocks.h) gets one of valgrind memcheck's four leak kinds, found as
// LeakSanitizer finds them, by scanning the process's memory for pointers:
//
//   roots   the writable segments of every loaded module (.data, .bss), every program thread's
//           registers and its stack from its stack pointer up, and its static TLS (dynamic TLS
//           is malloc'ed: those are blocks, found as blocks). The other threads are stopped
//           meanwhile (thread_stop.h).
//   still reachable   a chain of pointers to blocks' starts leads to it from a root;
//   possibly lost     a chain leads to it from a root, one pointer at least into its interior
//                     or into that of a block on the way;
//   indirectly lost   no chain from a root, but one from a lost block;
//   definitely lost   no pointer from anywhere: of a cycle of lost blocks, the one at the lowest
//                     address (the others are indirectly lost), as valgrind counts them.
//
// Not roots: the tracer's own memory (its rings and tables hold the addresses of the very blocks
// it records, which are no references of the program), its libraries' segments, their static TLS
// in every thread (the call being recorded, whose resource id is a block's address) and its
// control thread's stack. Bounds: at most kMaxLiveBlocks blocks (beyond, a NOTE says the check was
// not made); 25 bytes of mmap'd memory a block (the sorted blocks, a state byte, the mark stack of
// at most two entries a block); time linear in the bytes scanned (roots and blocks, each once per
// mark, at most twice) times the logarithm of the block count.
#pragma once

#include <cstdint>

namespace rtrace::tracer {

// Drain lock held, after the trace's last calls were written: classifies the live blocks and
// writes the LEAK_KINDS records (or a NOTE saying why it could not). `own_stack`: the calling
// thread is one of the program's (exit), so its stack above this call is a root; the control
// thread's (toggle off) is not.
void leak_check_write(std::uint32_t pid, bool own_stack);

}  // namespace rtrace::tracer
