// Hooking a running process's calls without LD_PRELOAD: when the tracer is loaded late (dlopen,
// `rtrace record -p`), the program's and its libraries' calls are already bound to the C
// library's functions through their global offset tables (GOT). The patcher rewrites those
// entries to the tracer's functions of the same name, and puts them back when tracing detaches.
//
// Which functions: every function the tracer's libraries (librtrace-*.so, main first) export,
// except their own interface (rtrace_*). A name defined by several of them goes to the last one
// loaded: its real function (dlsym RTLD_NEXT in its own dependency list) is the earlier one's,
// so the chain is the one LD_PRELOAD builds. An entry is rewritten only when it holds the
// function the dynamic linker binds the name to (or a lazy binding's stub of its own object):
// a program that defines its own malloc keeps it, as it would under LD_PRELOAD.
//
// Preloaded, the dynamic linker binds the program's calls to the tracer already, except in an
// object loaded with RTLD_DEEPBIND: its own dependencies (the C library) come first in its scope,
// so its malloc and free are libc's. After such a dlopen the patcher rewrites the entries that
// hold another library's definition of a name the tracer defines to the function the program's
// scope binds it to (a lazy binding's stub too: it would resolve in that scope). Objects of a
// dlmopen namespace are left alone: the tracer is not loaded there, and that namespace's C
// library has a heap of its own, which blocks allocated before a patch would mix with the
// program's.
//
// No allocation (the tables are mmap'd): the patcher runs in the dlopen hook too, while tracing.
#pragma once

#include <cstddef>

namespace rtrace::tracer {

// Reads the tracer libraries' exported functions (once their modules are loaded). False when
// none was found.
bool got_collect_hooks();
// The same for a preloaded tracer (after a dlopen with RTLD_DEEPBIND), unless they were read
// already (attached, or at an earlier such dlopen).
bool got_collect_preloaded_hooks();

// Rewrites the entries of every loaded object not patched yet (neither the tracer's own
// libraries nor the dynamic linker); returns how many entries it changed.
std::size_t got_patch_objects();

// Puts back every entry still holding the tracer's function, and forgets them all.
void got_restore();

// Forgets the entries of the objects no longer loaded (after a dlclose).
void got_forget_unloaded();

}  // namespace rtrace::tracer
