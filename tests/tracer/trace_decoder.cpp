#include "trace_decoder.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace rtrace::test {
namespace {

class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  bool u32(std::uint32_t& value) { return raw(&value, 4); }
  bool u64(std::uint64_t& value) { return raw(&value, 8); }
  bool string(std::string& value) {
    std::uint16_t length = 0;
    if (!raw(&length, 2) || length > size_ - used_ || (2 + length) % 4 != 0) {
      return false;
    }
    value.assign(data_ + used_, strnlen(data_ + used_, length));
    used_ += length;
    return true;
  }
  bool at_end() const { return used_ == size_; }

 private:
  bool raw(void* out, std::size_t bytes) {
    if (size_ - used_ < bytes) {
      return false;
    }
    std::memcpy(out, data_ + used_, bytes);
    used_ += bytes;
    return true;
  }
  const char* data_;
  std::size_t size_;
  std::size_t used_ = 0;
};

std::string type_name(std::uint32_t type) {
  std::string name(4, ' ');
  std::memcpy(name.data(), &type, 4);
  return name;
}

}  // namespace

void LeakChecker::call(const DecodedCall& call) {
  const auto counted = [&](std::uint32_t size) { return size >= lowest_ && size <= highest_; };
  if (call.kind == 2) {
    if (!live_.emplace(call.id, call.size).second) {
      ++double_allocations_;
    }
    counted_allocations_ += counted(call.size) ? 1 : 0;
  } else if (call.kind == 1 && call.id != 0) {
    const auto block = live_.find(call.id);
    if (block == live_.end()) {
      ++false_frees_;
      return;
    }
    counted_frees_ += counted(block->second) ? 1 : 0;
    live_.erase(block);
  }
}

void TraceDecoder::feed(const char* data, std::size_t size) {
  pending_.append(data, size);
  std::size_t used = 0;
  if (!handshake_seen_) {
    if (pending_.size() < 2 || pending_.size() < 2U + static_cast<unsigned char>(pending_[1])) {
      return;
    }
    const std::size_t total = 2 + static_cast<unsigned char>(pending_[1]);
    if (static_cast<unsigned char>(pending_[0]) != 0xF0 || pending_[2] != 2 || pending_[3] != 0 ||
        pending_.compare(4, 7, "\x06x86_64") != 0 || total % 4 != 0) {
      error_ = "bad handshake";
      return;
    }
    handshake_seen_ = true;
    used = total;
  }
  while (error_.empty() && pending_.size() - used >= 8) {
    std::uint32_t type = 0;
    std::uint32_t length = 0;
    std::memcpy(&type, pending_.data() + used, 4);
    std::memcpy(&length, pending_.data() + used + 4, 4);
    if (pending_.size() - used - 8 < length) {
      break;
    }
    if (!decode_packet(type, pending_.data() + used + 8, length)) {
      error_ = "bad " + type_name(type) + " packet at byte offset " + std::to_string(used);
    }
    used += 8 + length;
  }
  pending_.erase(0, used);
}

void TraceDecoder::finish_call() {
  if (!have_call_) {
    return;
  }
  have_call_ = false;
  ++call_count;
  if (check_leaks_) {
    leaks.call(current_);
  }
  if (keep_calls_) {
    calls.push_back(std::move(current_));
  }
  current_ = DecodedCall{};
}

bool TraceDecoder::decode_packet(std::uint32_t type, const char* data, std::size_t size) {
  Reader in(data, size);
  const std::string name = type_name(type);
  const bool is_map = name == "MMAP";
  if (is_map && !last_was_map_ && call_count + (have_call_ ? 1 : 0) > 0) {
    ++map_snapshots;
  }
  last_was_map_ = is_map;
  if (name == "BTRC" || name == "ARGS") {
    if (!have_call_) {
      return false;
    }
    std::uint32_t count = 0;
    if (!in.u32(count)) {
      return false;
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      if (name == "BTRC") {
        std::uint64_t frame = 0;
        if (!in.u64(frame)) {
          return false;
        }
        current_.frames.push_back(frame);
      } else {
        std::string arg_name;
        std::string value;
        if (!in.string(arg_name) || !in.string(value)) {
          return false;
        }
        current_.args.emplace_back(arg_name, value);
      }
    }
    return in.at_end();
  }
  finish_call();
  if (call_count == 0) {
    packet_order.push_back(name);
  }
  if (name == "CALL") {
    have_call_ = true;
    DecodedCall& call = current_;
    return in.u32(call.resource_type) && in.u32(call.context) && in.u32(call.timestamp) &&
           in.u32(call.kind) && in.string(call.name) && in.u32(call.size) && in.u64(call.id) &&
           in.at_end();
  }
  if (name == "PINF") {
    std::uint32_t seconds = 0;
    std::uint32_t microseconds = 0;
    return in.u32(pid) && in.u32(seconds) && in.u32(microseconds) && in.u32(depth) &&
           in.string(process) && in.at_end();
  }
  if (name == "MINF") {
    std::uint32_t id = 0;
    std::uint32_t version = 0;
    std::string module;
    const bool ok = in.u32(id) && in.u32(version) && in.string(module) && in.at_end();
    modules.emplace_back(
        id, module + " " + std::to_string(version >> 16) + "." + std::to_string(version & 0xffff));
    return ok;
  }
  if (name == "RESR") {
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::string resource;
    std::string description;
    const bool ok =
        in.u32(id) && in.u32(flags) && in.string(resource) && in.string(description) && in.at_end();
    resources.push_back(std::to_string(id) + " " + std::to_string(flags) + " " + resource + " (" +
                        description + ")");
    return ok;
  }
  if (name == "CTXR") {
    std::uint32_t id = 0;
    std::string context;
    const bool ok = in.u32(id) && in.string(context) && in.at_end();
    contexts.emplace_back(id, context);
    return ok;
  }
  if (name == "MMAP") {
    DecodedMapping mapping;
    const bool ok =
        in.u64(mapping.from) && in.u64(mapping.to) && in.string(mapping.path) && in.at_end();
    mappings.push_back(mapping);
    return ok;
  }
  if (name == "NLIB") {
    std::string library;
    return in.string(library) && in.at_end();
  }
  if (name == "HINF") {
    ++heap_infos;
    return size == 2 * 8 + 10 * 4;
  }
  return false;
}

TraceDecoder decode_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string text = bytes.str();
  TraceDecoder decoder;
  decoder.feed(text.data(), text.size());
  decoder.finish();
  return decoder;
}

}  // namespace rtrace::test
