// A small apitrace trace writer for tests and benchmarks: builds call streams of any trace
// version (0 to 6) byte by byte, and wraps them in each container apitrace reads.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtrace::apitrace::test {

struct FunctionDef {
  std::uint64_t id;
  std::string name;
  std::vector<std::string> arg_names;
};
struct EnumDef {
  std::uint64_t id;
  std::vector<std::pair<std::string, std::int64_t>> values;
};
struct BitmaskDef {
  std::uint64_t id;
  std::vector<std::pair<std::string, std::uint64_t>> flags;
};
struct StructDef {
  std::uint64_t id;
  std::string name;
  std::vector<std::string> members;
};
struct FrameDef {
  std::uint64_t id;
  std::string module, function, file;
  std::uint64_t line = 0;
  std::uint64_t offset = 0;
};

class TraceEncoder {
 public:
  // Writes the header; properties only exist from version 6.
  explicit TraceEncoder(unsigned version,
                        const std::vector<std::pair<std::string, std::string>>& properties = {});

  unsigned version() const { return version_; }
  const std::string& stream() const { return out_; }
  // Hands over the bytes written so far (to write a large trace chunk by chunk).
  std::string take() { return std::exchange(out_, {}); }

  // Events. enter() returns the call number the reader will give the call.
  std::uint64_t enter(const FunctionDef& function, std::uint64_t thread = 0);
  void leave(std::uint64_t call_number);
  // Call details (after enter() or leave()); end() closes the event.
  void arg(std::uint64_t index) { byte(0x01), uint(index); }
  void ret() { byte(0x02); }
  void thread_detail(std::uint64_t thread) { byte(0x03), uint(thread); }
  void backtrace(const std::vector<FrameDef>& frames);
  void fake() { byte(0x05), uint(1); }
  void end() { byte(0x00); }

  // Values.
  void null() { byte(0x00); }
  void boolean(bool value) { byte(value ? 0x02 : 0x01); }
  void sint(std::int64_t value);
  void uint_value(std::uint64_t value) { byte(0x04), uint(value); }
  void real32(float value);
  void real64(double value);
  void string(std::string_view text) { byte(0x07), bytes(text); }
  void blob(std::string_view data) { byte(0x08), bytes(data); }
  void wstring(const std::vector<std::uint32_t>& units);
  void enumeration(const EnumDef& def, std::int64_t value);
  void bitmask(const BitmaskDef& def, std::uint64_t value);
  void array(std::uint64_t count) { byte(0x0b), uint(count); }  // then `count` values
  void structure(const StructDef& def);                         // then one value per member
  void pointer(std::uint64_t address) { byte(0x0d), uint(address); }
  void repr() { byte(0x0e); }  // then the human value and the machine value

  // Raw pieces, for hostile streams.
  void byte(std::uint8_t b) { out_ += static_cast<char>(b); }
  void uint(std::uint64_t value);
  void bytes(std::string_view data) { uint(data.size()), out_ += data; }

 private:
  unsigned version_;
  std::string out_;
  std::uint64_t next_call_ = 0;
  std::set<std::uint64_t> functions_, enums_, bitmasks_, structs_, frames_;
};

// Containers.
std::string snappy_container(std::string_view stream, std::size_t chunk_size = 1 << 20);
// One Snappy chunk (length + block), to append after "at".
std::string snappy_chunk(std::string_view data);
std::string gzip_container(std::string_view stream);
std::string zstd_container(std::string_view stream);
// `quality` as Brotli's (0 to 11): the fastest is enough for streams of many megabytes.
std::string brotli_container(std::string_view stream, int quality = 11);

}  // namespace rtrace::apitrace::test
