// printf-style columns for mptrace's tables. A verbose listing of a large trace prints millions
// of rows, so a row is assembled in a small array on the stack (no format-string parse, one copy
// into the output buffer per row).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rtrace::mpatrol {

class Row {
 public:
  // Room for the widest row: seven 20-digit numbers and the literals between them.
  static constexpr std::size_t kCapacity = 256;

  // printf("%*lu", width, value): right-aligned in `width` columns, wider when it must be.
  Row& decimal(std::uint64_t value, std::size_t width = 0) {
    char digits[20];
    char* p = digits + sizeof digits;
    while (value >= 100) {
      const auto pair = static_cast<unsigned>(value % 100) * 2;
      value /= 100;
      *--p = kPairs[pair + 1];
      *--p = kPairs[pair];
    }
    if (value >= 10) {
      const auto pair = static_cast<unsigned>(value) * 2;
      *--p = kPairs[pair + 1];
      *--p = kPairs[pair];
    } else {
      *--p = static_cast<char>('0' + value);
    }
    const auto length = static_cast<std::size_t>(digits + sizeof digits - p);
    for (std::size_t i = length; i < width; ++i) {
      *end_++ = ' ';
    }
    std::memcpy(end_, p, length);
    end_ += length;
    return *this;
  }

  // printf("0x%016lX", value).
  Row& hex16_upper(std::uint64_t value) {
    static constexpr char kDigits[] = "0123456789ABCDEF";
    *end_++ = '0';
    *end_++ = 'x';
    for (int i = 15; i >= 0; --i, value >>= 4) {
      end_[i] = kDigits[value & 0xFU];
    }
    end_ += 16;
    return *this;
  }

  // A literal of at most a few dozen characters.
  Row& text(std::string_view literal) {
    std::memcpy(end_, literal.data(), literal.size());
    end_ += literal.size();
    return *this;
  }

  void append_to(std::string& out) const {
    out.append(data_, static_cast<std::size_t>(end_ - data_));
  }

 private:
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";

  char data_[kCapacity];
  char* end_ = data_;
};

// printf("%lu", value) appended to `out`.
inline void append_decimal(std::string& out, std::uint64_t value) {
  Row row;
  row.decimal(value).append_to(out);
}

}  // namespace rtrace::mpatrol
