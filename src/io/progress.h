// A progress line for long reads and writes: "rtrace: reading churn.raw: 45.2 MiB of 194.0 MiB
// (23%), 120.5 MiB/s" on standard error, redrawn at most ten times a second and cleared at the
// end, only when standard error is a terminal (never in a pipe or a log) and not --quiet.
//
// advance() may be called from several threads (the recorder's connections share one line).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "io/byte_source.h"

namespace rtrace {

class Progress {
 public:
  // `what` says what is being done ("reading churn.raw"); `total` is the size when known.
  // Shows nothing unless `wanted` (see shown_on_stderr) is true. `start`: when the work began.
  Progress(std::string what, std::optional<std::uint64_t> total, bool wanted, int fd = 2,
           std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now());
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  // Whether a progress line belongs on standard error: it is a terminal and not `quiet`.
  static bool shown_on_stderr(bool quiet);

  void advance(std::uint64_t bytes) { advance(bytes, std::chrono::steady_clock::now()); }
  // The same at a given time (tests give their own, which a slow machine cannot stretch).
  void advance(std::uint64_t bytes, std::chrono::steady_clock::time_point now);
  // Clears the line (also done by the destructor); later advances show nothing.
  void finish();
  // Clears the line for a message; the next redraw brings it back.
  void interrupt();
  // Draws the line only while `allowed()` says so (asked at each redraw, under the line's lock);
  // when it says no, a line on screen is cleared and the bytes are still counted.
  void draw_only_while(std::function<bool()> allowed);
  // Whether the line may still be shown (wanted, and not finished).
  bool active() const { return active_.load(std::memory_order_relaxed); }

 private:
  void draw(std::chrono::steady_clock::time_point now);

  std::string what_;
  std::optional<std::uint64_t> total_;
  int fd_;
  std::atomic<bool> active_;
  std::atomic<std::uint64_t> done_{0};
  std::atomic<std::int64_t> next_draw_ns_{0};  // steady clock, nanoseconds
  std::chrono::steady_clock::time_point start_;
  std::mutex drawing_;
  bool drawn_ = false;
  std::function<bool()> allowed_;  // empty: always
};

// A source that counts the bytes read through it into a progress line, cleared at the end.
class ProgressSource final : public ByteSource {
 public:
  ProgressSource(std::unique_ptr<ByteSource> source, std::unique_ptr<Progress> progress)
      : source_(std::move(source)), progress_(std::move(progress)) {}
  std::size_t read(std::span<std::uint8_t> buffer) override;

 private:
  std::unique_ptr<ByteSource> source_;
  std::unique_ptr<Progress> progress_;
};

// "512 B", "4.8 KiB", "1.2 MiB", ...
std::string progress_bytes(double bytes);

}  // namespace rtrace
