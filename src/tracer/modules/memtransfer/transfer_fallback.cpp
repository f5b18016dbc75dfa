#include "tracer/modules/memtransfer/transfer_fallback.h"

namespace rtrace::tracer {

void* fallback_copy(void* destination, const void* source, std::size_t size) {
  auto* to = static_cast<volatile unsigned char*>(destination);
  const auto* from = static_cast<const volatile unsigned char*>(source);
  for (std::size_t i = 0; i < size; ++i) {
    to[i] = from[i];
  }
  return destination;
}

void* fallback_move(void* destination, const void* source, std::size_t size) {
  auto* to = static_cast<volatile unsigned char*>(destination);
  const auto* from = static_cast<const volatile unsigned char*>(source);
  if (to < from) {
    return fallback_copy(destination, source, size);
  }
  for (std::size_t i = size; i > 0; --i) {
    to[i - 1] = from[i - 1];
  }
  return destination;
}

void* fallback_fill(void* destination, int value, std::size_t size) {
  auto* to = static_cast<volatile unsigned char*>(destination);
  for (std::size_t i = 0; i < size; ++i) {
    to[i] = static_cast<unsigned char>(value);
  }
  return destination;
}

std::size_t fallback_length(const char* text) {
  std::size_t length = 0;
  const volatile char* at = text;
  while (at[length] != '\0') {
    ++length;
  }
  return length;
}

std::size_t fallback_bounded_length(const char* text, std::size_t limit) {
  std::size_t length = 0;
  const volatile char* at = text;
  while (length < limit && at[length] != '\0') {
    ++length;
  }
  return length;
}

std::size_t fallback_wide_length(const wchar_t* text) {
  std::size_t length = 0;
  const volatile wchar_t* at = text;
  while (at[length] != L'\0') {
    ++length;
  }
  return length;
}

}  // namespace rtrace::tracer
