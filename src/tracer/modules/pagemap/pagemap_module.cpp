// librtrace-pagemap.so: when a trace ends, a snapshot of the process's memory beside the trace,
// as the original's pagemap module: a copy of /proc/self/maps, the kernel's page map of every
// private writable mapping, the page flags of their frames (where /proc/kpageflags is readable)
// and which of their resident pages hold only zero bytes (pagemap_writer.h; the layout in
// pagemap_layout.h and docs/pagemap.md), each named by a FILE packet at the end of the trace
// (`& maps : <pid>-<n>.maps` in the text protocol).
//
// The module traces no function and registers no resource type: it only hooks the end of the
// trace (rtrace_register_stop_hook). That runs when tracing is toggled off and at exit, _exit,
// quick_exit and exec; not after a crash (see trace_session.cpp). The snapshot is
// async-signal-safe (raw system calls, static buffers), as _exit may be called from a signal
// handler. The files go to the directory of the trace: the recorder's output directory
// (`attachments=`), or the managed-mode directory.
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer/api/module_sdk.h"
#include "tracer/modules/pagemap/pagemap_writer.h"

namespace rtrace::tracer {
namespace {

struct PagemapModule {};

std::size_t g_page_size = 0;

// Nothing is interposed: no real function to find.
bool resolve_pagemap() {
  return true;
}

void write_snapshot(const char* directory) {
  const auto pid = static_cast<std::uint64_t>(::syscall(SYS_getpid));
  write_pagemap_snapshot(directory, pid, g_page_size, PagemapSources{}, rtrace_attach_file);
}

void register_pagemap_module() {
  g_page_size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  rtrace_register_module("pagemap", 1, 0);
  rtrace_register_stop_hook(write_snapshot);
  rtrace_module_ready();
}

constinit ModuleStart<PagemapModule> g_pagemap_start{resolve_pagemap, register_pagemap_module};

}  // namespace
}  // namespace rtrace::tracer

// The session registers the preloaded modules in LD_PRELOAD order (module_order.h).
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  rtrace::tracer::g_pagemap_start.register_in_order();
}

namespace {

__attribute__((constructor)) void pagemap_module_init() {
  rtrace::tracer::g_pagemap_start.finish_registration();
}

}  // namespace
