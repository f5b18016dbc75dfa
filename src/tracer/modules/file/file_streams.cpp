// librtrace-file.so: every function that opens or closes a FILE stream, recorded as the
// original's file module records it (resource `fp`, size 1, the id is the FILE pointer):
//  * fopen/fopen64 and freopen/freopen64 with `$path` and `$mode`; freopen first records the
//    release of the stream it reopens; fdopen with `$fd` and `$mode`, after the release of the
//    descriptor (the stream owns it now: fclose closes it);
//  * tmpfile, open_memstream (no arguments), popen with `$command` and `$mode`, fmemopen with
//    `$mode` (these are not in the original);
//  * fclose and pclose record a release, whatever they return: the stream is gone either way
//    (POSIX), only its last flush may have failed. fcloseall records a release of id
//    0xffffffffffffffff, as the original (glibc's fcloseall only flushes: the streams stay).
// What the real functions do inside (fopen's malloc for the FILE and its buffer) is recorded by
// the other modules (memory), not by this one: its own wrappers are not reached from glibc's
// inside (internal calls), and its guard covers the rest.
#include <errno.h>
#include <stdio.h>

#include <cstdint>

#include "tracer/modules/file/file_tracing.h"

using rtrace::tracer::FdKind;
using rtrace::tracer::FdRelease;
using rtrace::tracer::file_module_ready;
using rtrace::tracer::file_tracing_now;
using rtrace::tracer::FileGuard;
using rtrace::tracer::format_int;
using rtrace::tracer::g_file_real;
using rtrace::tracer::record_stream;
using rtrace::tracer::remember_fd;
using rtrace::tracer::StreamRelease;

namespace {

FILE* unavailable_stream() {
  errno = ENOSYS;
  return nullptr;
}

// The descriptor under a new stream, remembered as `kind` (memory streams have none).
void remember_stream_fd(FILE* stream, FdKind kind) {
  if (stream != nullptr) {
    remember_fd(::fileno(stream), kind);
  }
}

// Runs `open` (a stream, or null) under the module's guard; when it succeeded and a trace is on,
// records it with `record(stream)`.
template <typename Open, typename Record>
FILE* traced_stream(FdKind kind, Open&& open, Record&& record) {
  if (!file_tracing_now()) {
    FILE* stream = open();
    remember_stream_fd(stream, kind);
    return stream;
  }
  FILE* stream = nullptr;
  {
    FileGuard guard;
    stream = open();
  }
  if (stream != nullptr) {
    remember_stream_fd(stream, kind);
    record(stream);
  }
  return stream;
}

template <typename Open>
FILE* traced_fopen(const char* name, const char* path, const char* mode, const void* return_address,
                   Open&& open) {
  return traced_stream(FdKind::File, open, [&](FILE* stream) {
    const RtraceArg args[] = {{"path", path}, {"mode", mode}};
    record_stream(name, stream, return_address, args, 2);
  });
}

// freopen: the same FILE comes back (or null): the release of the old stream and the new one are
// both recorded after the call, only when it succeeded.
template <typename Reopen>
FILE* traced_freopen(const char* name, const char* path, const char* mode, FILE* old,
                     const void* return_address, Reopen&& reopen) {
  if (!file_tracing_now()) {
    FILE* stream = reopen();
    remember_stream_fd(stream, FdKind::File);
    return stream;
  }
  FILE* stream = nullptr;
  {
    FileGuard guard;
    stream = reopen();
  }
  if (stream != nullptr) {
    remember_stream_fd(stream, FdKind::File);
    StreamRelease(name, reinterpret_cast<std::uintptr_t>(old), return_address).commit();
    const RtraceArg args[] = {{"path", path != nullptr ? path : "(null)"}, {"mode", mode}};
    record_stream(name, stream, return_address, args, 2);
  }
  return stream;
}

// fclose, pclose: the release, recorded (and committed) before the call, which releases the
// stream whatever it returns. Committed at once because the call may block for long (pclose
// waits for the command, a flush may wait for a pipe's reader): a release still held would keep
// every thread's records from being written out meanwhile.
template <typename Close>
int traced_close(const char* name, FILE* stream, const void* return_address, Close&& close) {
  if (stream != nullptr) {
    remember_fd(::fileno(stream), FdKind::Unknown);
  }
  if (!file_tracing_now()) {
    return close();
  }
  StreamRelease(name, reinterpret_cast<std::uintptr_t>(stream), return_address).commit();
  FileGuard guard;
  return close();
}

}  // namespace

extern "C" {

RTRACE_EXPORT FILE* fopen(const char* path, const char* mode) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  return traced_fopen("fopen", path, mode, __builtin_return_address(0),
                      [&] { return g_file_real.fopen(path, mode); });
}

RTRACE_EXPORT FILE* fopen64(const char* path, const char* mode) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  return traced_fopen("fopen64", path, mode, __builtin_return_address(0),
                      [&] { return g_file_real.fopen64(path, mode); });
}

RTRACE_EXPORT FILE* freopen(const char* path, const char* mode, FILE* stream) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  return traced_freopen("freopen", path, mode, stream, __builtin_return_address(0),
                        [&] { return g_file_real.freopen(path, mode, stream); });
}

RTRACE_EXPORT FILE* freopen64(const char* path, const char* mode, FILE* stream) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  return traced_freopen("freopen64", path, mode, stream, __builtin_return_address(0),
                        [&] { return g_file_real.freopen64(path, mode, stream); });
}

RTRACE_EXPORT FILE* fdopen(int fd, const char* mode) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  if (!file_tracing_now()) {
    return g_file_real.fdopen(fd, mode);
  }
  FILE* stream = nullptr;
  {
    FileGuard guard;
    stream = g_file_real.fdopen(fd, mode);
  }
  if (stream != nullptr) {
    FdRelease("fdopen", fd, return_address).commit();
    char fd_text[16];
    format_int(fd_text, fd);
    const RtraceArg args[] = {{"fd", fd_text}, {"mode", mode}};
    record_stream("fdopen", stream, return_address, args, 2);
  }
  return stream;
}

RTRACE_EXPORT FILE* tmpfile() {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_stream(
      FdKind::File, [] { return g_file_real.tmpfile(); },
      [&](FILE* stream) { record_stream("tmpfile", stream, return_address); });
}

RTRACE_EXPORT FILE* tmpfile64() {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_stream(
      FdKind::File, [] { return g_file_real.tmpfile64(); },
      [&](FILE* stream) { record_stream("tmpfile64", stream, return_address); });
}

RTRACE_EXPORT FILE* popen(const char* command, const char* mode) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_stream(
      FdKind::Pipe, [&] { return g_file_real.popen(command, mode); },
      [&](FILE* stream) {
        const RtraceArg args[] = {{"command", command}, {"mode", mode}};
        record_stream("popen", stream, return_address, args, 2);
      });
}

RTRACE_EXPORT FILE* fmemopen(void* buffer, std::size_t size, const char* mode) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_stream(
      FdKind::Unknown, [&] { return g_file_real.fmemopen(buffer, size, mode); },
      [&](FILE* stream) {
        const RtraceArg args[] = {{"mode", mode}};
        record_stream("fmemopen", stream, return_address, args, 1);
      });
}

RTRACE_EXPORT FILE* open_memstream(char** buffer, std::size_t* size) {
  if (!file_module_ready()) {
    return unavailable_stream();
  }
  const void* return_address = __builtin_return_address(0);
  return traced_stream(
      FdKind::Unknown, [&] { return g_file_real.open_memstream(buffer, size); },
      [&](FILE* stream) { record_stream("open_memstream", stream, return_address); });
}

RTRACE_EXPORT int fclose(FILE* stream) {
  if (!file_module_ready()) {
    errno = ENOSYS;
    return EOF;
  }
  return traced_close("fclose", stream, __builtin_return_address(0),
                      [&] { return g_file_real.fclose(stream); });
}

RTRACE_EXPORT int pclose(FILE* stream) {
  if (!file_module_ready()) {
    errno = ENOSYS;
    return -1;
  }
  return traced_close("pclose", stream, __builtin_return_address(0),
                      [&] { return g_file_real.pclose(stream); });
}

RTRACE_EXPORT int fcloseall() {
  if (!file_module_ready()) {
    errno = ENOSYS;
    return EOF;
  }
  if (!file_tracing_now()) {
    return g_file_real.fcloseall();
  }
  int result = 0;
  {
    FileGuard guard;
    result = g_file_real.fcloseall();
  }
  if (result == 0) {
    StreamRelease("fcloseall", UINT64_MAX, __builtin_return_address(0)).commit();
  }
  return result;
}
}
