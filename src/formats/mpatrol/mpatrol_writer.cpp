#include "formats/mpatrol/mpatrol_writer.h"

#include <algorithm>

#include "formats/mpatrol/leb128.h"

namespace rtrace::mpatrol {

void NameCacheWriter::append(std::string& out, std::string_view name) {
  if (name.empty()) {
    out.push_back('\0');
    return;
  }
  ++clock_;
  Entry* const begin = entries_.data();
  Entry* const end = begin + used_;
  Entry* hit = std::find_if(begin, end, [&](const Entry& e) { return e.name == name; });
  if (hit != end) {
    hit->last_use = clock_;
    out.push_back(static_cast<char>(hit->slot));
    return;
  }
  Entry* target = nullptr;
  if (used_ < entries_.size()) {
    target = &entries_[used_];
    ++used_;
    target->slot = used_;
  } else {
    target = std::min_element(
        begin, end, [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
  }
  target->name.assign(name);
  target->last_use = clock_;
  out.push_back(static_cast<char>(0x80U | target->slot));
  out.append(name);
  out.push_back('\0');
}

TraceWriter::TraceWriter(const Header& header) : header_(header) {
  bytes_.append("MTRC");
  header_word(1);
  header_word(header.version);
}

void TraceWriter::header_word(std::uint64_t value) {
  for (unsigned i = 0; i < header_.word_size; ++i) {
    const unsigned byte = header_.big_endian ? header_.word_size - 1U - i : i;
    bytes_.push_back(static_cast<char>((value >> (8U * byte)) & 0xFFU));
  }
}

void TraceWriter::source(const SourceInfo& info) {
  if (!header_.has_source_fields()) {
    return;
  }
  append_uleb128(bytes_, info.thread);
  functions_.append(bytes_, info.function);
  files_.append(bytes_, info.file);
  append_uleb128(bytes_, info.line);
}

void TraceWriter::alloc(std::uint64_t index, std::uint64_t address, std::uint64_t size,
                        const SourceInfo& info) {
  bytes_.push_back('A');
  append_uleb128(bytes_, index);
  append_uleb128(bytes_, address);
  append_uleb128(bytes_, size);
  source(info);
}

void TraceWriter::realloc(std::uint64_t index, std::uint64_t address, std::uint64_t size,
                          const SourceInfo& info) {
  bytes_.push_back('R');
  append_uleb128(bytes_, index);
  append_uleb128(bytes_, address);
  append_uleb128(bytes_, size);
  source(info);
}

void TraceWriter::free(std::uint64_t index, const SourceInfo& info) {
  bytes_.push_back('F');
  append_uleb128(bytes_, index);
  source(info);
}

void TraceWriter::reserve(std::uint64_t address, std::uint64_t size) {
  bytes_.push_back('H');
  append_uleb128(bytes_, address);
  append_uleb128(bytes_, size);
}

void TraceWriter::internal(std::uint64_t address, std::uint64_t size) {
  bytes_.push_back('I');
  append_uleb128(bytes_, address);
  append_uleb128(bytes_, size);
}

void TraceWriter::end_marker() {
  bytes_.append("MTRC");
}

}  // namespace rtrace::mpatrol
