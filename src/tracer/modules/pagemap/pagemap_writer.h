// The pagemap module's snapshot of the process's memory, written beside the trace when it ends
// (pagemap_layout.h, docs/pagemap.md): a copy of the memory map, the kernel's page map of every
// private writable mapping, the page flags of their page frames (where /proc/kpageflags is
// readable) and which of their resident pages hold only zero bytes.
//
// Async-signal-safe: raw system calls, static buffers (one snapshot at a time: the session runs
// stop hooks under its drain lock), no allocation, no locks. Never reads a page that is not
// resident (that would fault it in): the zero-page scan reads only pages the page map says are
// present, through /proc/self/mem (a page that went away meanwhile is an error, not a signal).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rtrace::tracer {

// Where the snapshot reads from; other paths only in tests (an unreadable kpageflags).
struct PagemapSources {
  const char* maps = "/proc/self/maps";
  const char* pagemap = "/proc/self/pagemap";
  const char* kpageflags = "/proc/kpageflags";
  const char* memory = "/proc/self/mem";
};

// Told of each file written completely: its attachment name and its file name in the directory.
using AttachFunction = void (*)(const char* name, const char* file);

// Writes <directory>/<pid>-<n>.maps, .pagemap, .kpageflags, .zeropages, n the first number for
// which the .maps file can be created; every file is new (O_EXCL, O_NOFOLLOW: never overwrites,
// never follows a symbolic link). A file whose source cannot be read is left out (.kpageflags
// without /proc/kpageflags); an incomplete one is removed. Calls `attach` for each file, in that
// order; returns how many there are.
int write_pagemap_snapshot(const char* directory, std::uint64_t pid, std::size_t page_size,
                           const PagemapSources& sources, AttachFunction attach);

}  // namespace rtrace::tracer
