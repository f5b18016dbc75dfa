#include "trace_encoder.h"

#include <brotli/encode.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace rtrace::apitrace::test {

TraceEncoder::TraceEncoder(unsigned version,
                           const std::vector<std::pair<std::string, std::string>>& properties)
    : version_(version) {
  uint(version);
  if (version >= 6) {
    uint(version);  // semantic version
    for (const auto& [name, value] : properties) {
      bytes(name);
      bytes(value);
    }
    bytes("");
  }
}

void TraceEncoder::uint(std::uint64_t value) {
  do {
    std::uint8_t b = value & 0x7f;
    value >>= 7;
    if (value != 0) {
      b |= 0x80;
    }
    byte(b);
  } while (value != 0);
}

std::uint64_t TraceEncoder::enter(const FunctionDef& function, std::uint64_t thread) {
  byte(0x00);
  if (version_ >= 4) {
    uint(thread);
  }
  uint(function.id);
  if (functions_.insert(function.id).second) {
    bytes(function.name);
    uint(function.arg_names.size());
    for (const std::string& name : function.arg_names) {
      bytes(name);
    }
  }
  if (version_ < 4 && thread != 0) {
    thread_detail(thread);
  }
  return next_call_++;
}

void TraceEncoder::leave(std::uint64_t call_number) {
  byte(0x01);
  uint(call_number);
}

void TraceEncoder::backtrace(const std::vector<FrameDef>& frames) {
  byte(0x04);
  uint(frames.size());
  for (const FrameDef& f : frames) {
    uint(f.id);
    if (frames_.insert(f.id).second) {
      if (!f.module.empty()) {
        byte(0x01), bytes(f.module);
      }
      if (!f.function.empty()) {
        byte(0x02), bytes(f.function);
      }
      if (!f.file.empty()) {
        byte(0x03), bytes(f.file);
        byte(0x04), uint(f.line);
      }
      byte(0x05), uint(f.offset);
      byte(0x00);
    }
  }
}

void TraceEncoder::sint(std::int64_t value) {
  if (value < 0) {
    byte(0x03);
    uint(0 - static_cast<std::uint64_t>(value));
  } else {
    uint_value(static_cast<std::uint64_t>(value));
  }
}

void TraceEncoder::real32(float value) {
  byte(0x05);
  char raw[sizeof value];
  std::memcpy(raw, &value, sizeof value);
  out_.append(raw, sizeof raw);
}

void TraceEncoder::real64(double value) {
  byte(0x06);
  char raw[sizeof value];
  std::memcpy(raw, &value, sizeof value);
  out_.append(raw, sizeof raw);
}

void TraceEncoder::wstring(const std::vector<std::uint32_t>& units) {
  byte(0x0f);
  uint(units.size());
  for (const std::uint32_t u : units) {
    uint(u);
  }
}

// Before version 3 an enum signature is one name/value pair, and the value is the signature's.
void TraceEncoder::enumeration(const EnumDef& def, std::int64_t value) {
  byte(0x09);
  uint(def.id);
  const bool first = enums_.insert(def.id).second;
  if (version_ < 3) {
    if (first) {
      bytes(def.values.at(0).first);
      sint(def.values.at(0).second);
    }
    return;
  }
  if (first) {
    uint(def.values.size());
    for (const auto& [name, v] : def.values) {
      bytes(name);
      sint(v);
    }
  }
  sint(value);
}

void TraceEncoder::bitmask(const BitmaskDef& def, std::uint64_t value) {
  byte(0x0a);
  uint(def.id);
  if (bitmasks_.insert(def.id).second) {
    uint(def.flags.size());
    for (const auto& [name, v] : def.flags) {
      bytes(name);
      uint(v);
    }
  }
  uint(value);
}

void TraceEncoder::structure(const StructDef& def) {
  byte(0x0c);
  uint(def.id);
  if (structs_.insert(def.id).second) {
    bytes(def.name);
    uint(def.members.size());
    for (const std::string& m : def.members) {
      bytes(m);
    }
  }
}

std::string snappy_chunk(std::string_view data) {
  std::string compressed;
  snappy::Compress(data.data(), data.size(), &compressed);
  std::string out;
  const auto n = static_cast<std::uint32_t>(compressed.size());
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((n >> (8 * i)) & 0xff);
  }
  return out + compressed;
}

std::string snappy_container(std::string_view stream, std::size_t chunk_size) {
  std::string out = "at";
  for (std::size_t at = 0; at < stream.size(); at += chunk_size) {
    out += snappy_chunk(stream.substr(at, chunk_size));
  }
  return out;
}

std::string gzip_container(std::string_view stream) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&z, stream.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z.avail_in = static_cast<uInt>(stream.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
    throw std::runtime_error("deflate");
  }
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd_container(std::string_view stream) {
  std::string out(ZSTD_compressBound(stream.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), stream.data(), stream.size(), 3);
  if (ZSTD_isError(n) != 0) {
    throw std::runtime_error("ZSTD_compress");
  }
  out.resize(n);
  return out;
}

std::string brotli_container(std::string_view stream, int quality) {
  std::size_t size = BrotliEncoderMaxCompressedSize(stream.size()) + 64;
  std::string out(size, '\0');
  if (BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, stream.size(),
                            reinterpret_cast<const std::uint8_t*>(stream.data()), &size,
                            reinterpret_cast<std::uint8_t*>(out.data())) == 0) {
    throw std::runtime_error("BrotliEncoderCompress");
  }
  out.resize(size);
  return out;
}

}  // namespace rtrace::apitrace::test
