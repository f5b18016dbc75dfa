// The alternate signal stacks of the traced threads. The crash handler must run even when the
// thread crashed because its stack is exhausted (unbounded recursion): each traced thread that
// has no alternate stack of its own gets one with its ring (thread_rings.h), and the crash
// handlers are installed with SA_ONSTACK. A stack belongs to a ring slot and is reused with it,
// so short-lived threads do not add up. Nothing here allocates through the traced allocator.
#pragma once

namespace rtrace::tracer {

// A new alternate stack (mmap'ed, with a guard page below it); null when there is no memory.
void* signal_stack_create();
// Makes `stack` this thread's alternate signal stack unless the thread already has one (the
// program's own, which we leave alone). Returns whether it did.
bool signal_stack_adopt(void* stack);
// Before `stack` goes to another thread: this thread stops using it, if it does.
void signal_stack_release(void* stack);

}  // namespace rtrace::tracer
