#include "tracer/output/path_record.h"

#include <cstring>

#include "tracer/core/decimal.h"

namespace rtrace::tracer {

std::size_t expand_path_record(const char* record, char* out, std::size_t room) {
  PathFields fields{};
  std::memcpy(&fields, record, kPathFixed);
  if (fields.path_length > kMaxPathText) {
    return 0;  // never written so
  }
  // The path back as a C string: the record holds its bytes without the NUL.
  static char path[kMaxPathText + 1];
  std::memcpy(path, record + kPathFixed, fields.path_length);
  path[fields.path_length] = '\0';
  char value_text[24];
  *write_hex(value_text, fields.value) = '\0';
  const RtraceArg args[] = {
      {"path", path},
      {reinterpret_cast<const char*>(static_cast<std::uintptr_t>(fields.value_name)), value_text}};
  const std::uintptr_t* frames = path_record_frames(const_cast<char*>(record), fields.path_length);
  return write_head_packets(fields.head, sprtrace::kCallAlloc, fields.name, fields.size, args, 2,
                            frames, out, room);
}

}  // namespace rtrace::tracer
