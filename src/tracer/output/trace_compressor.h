// zstd compression of the compact trace, done by the writer (whoever holds the drain lock): the
// whole file becomes one zstd frame, which every rtrace reader (and the zstd command) opens.
//
// libzstd is loaded at run time (dlopen), so the tracer libraries keep NEEDing only libc and
// ld.so, by librtrace-main.so's constructor (or the control thread, or at the latest its
// destructor): never inside an interposed call, where the loader may already be busy, nor in a
// signal handler. zstd gets its memory from
// mmap (ZSTD_customMem), never from the program's malloc. After each flush everything written so
// far decodes, so a process killed by SIGKILL leaves a readable (truncated) frame.
#pragma once

#include <cstddef>

namespace rtrace::tracer {

// Loads libzstd.so.1 and creates the compression context; false when either is impossible.
// The constructor, the control thread or the destructor only (never inside an interposed call);
// a call while another thread loads waits for it; later calls return the first one's answer.
bool compressor_load();
// Whether compressor_load succeeded (any thread).
bool compressor_ready();

// Where compressed bytes go; false when they could not be written.
using CompressedSink = bool (*)(const char* data, std::size_t size);

// Begins a new frame (a new trace) at compression `level`; false when zstd refuses.
bool compressor_begin(int level);
// Compresses `size` bytes and flushes them (`end`: and ends the frame) into `sink`.
bool compressor_write(const char* data, std::size_t size, bool end, CompressedSink sink);

}  // namespace rtrace::tracer
