// How readers report problems with their input.
//
// A position is a byte offset for binary input and a line number for text input; both print as
// `FILE:N`. Damage that ends the input early is a warning (everything complete before it has been
// processed); damage that makes the rest meaningless is an InputError.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rtrace {

class InputError : public std::runtime_error {
 public:
  InputError(std::string_view file, std::uint64_t position, std::string_view message);

  const std::string& file() const { return file_; }
  std::uint64_t position() const { return position_; }

 private:
  std::string file_;
  std::uint64_t position_;
};

class Diagnostics {
 public:
  Diagnostics() = default;
  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;
  virtual ~Diagnostics() = default;

  void warning(std::string_view file, std::uint64_t position, std::string_view message);
  std::uint64_t warning_count() const { return warnings_; }

 protected:
  virtual void report(std::string_view file, std::uint64_t position, std::string_view message) = 0;

 private:
  std::uint64_t warnings_ = 0;
};

// Prints `rtrace: FILE:N: warning: ...` on standard error unless quiet.
class StderrDiagnostics final : public Diagnostics {
 public:
  explicit StderrDiagnostics(bool quiet = false) : quiet_(quiet) {}

 protected:
  void report(std::string_view file, std::uint64_t position, std::string_view message) override;

 private:
  bool quiet_;
};

// Keeps the messages; for tests and for callers that decide later what to show.
class CollectingDiagnostics final : public Diagnostics {
 public:
  const std::string& text() const { return text_; }

 protected:
  void report(std::string_view file, std::uint64_t position, std::string_view message) override;

 private:
  std::string text_;
};

}  // namespace rtrace
