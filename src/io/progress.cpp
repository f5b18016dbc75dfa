#include "io/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>

namespace rtrace {
namespace {

constexpr std::int64_t kRedrawEveryNs = 100'000'000;  // ten times a second at most

std::int64_t nanoseconds(std::chrono::steady_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      return;  // a progress line is not worth an error
    }
    written += static_cast<std::size_t>(n);
  }
}

// Carriage return, then erase to the end of the line.
constexpr std::string_view kClearLine = "\r\033[K";

}  // namespace

std::string progress_bytes(double bytes) {
  static constexpr std::array<const char*, 5> kUnits{"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    return fmt::format("{:.0f} B", bytes);
  }
  double value = bytes / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

Progress::Progress(std::string what, std::optional<std::uint64_t> total, bool wanted, int fd,
                   std::chrono::steady_clock::time_point start)
    : what_(std::move(what)), total_(total), fd_(fd), active_(wanted), start_(start) {
  next_draw_ns_ = nanoseconds(start_) + kRedrawEveryNs;
}

Progress::~Progress() {
  finish();
}

bool Progress::shown_on_stderr(bool quiet) {
  return !quiet && ::isatty(STDERR_FILENO) == 1;
}

void Progress::advance(std::uint64_t bytes, std::chrono::steady_clock::time_point now) {
  if (!active_.load(std::memory_order_relaxed)) {
    return;
  }
  done_.fetch_add(bytes, std::memory_order_relaxed);
  std::int64_t due = next_draw_ns_.load(std::memory_order_relaxed);
  // One thread wins each redraw; the others go on.
  if (nanoseconds(now) >= due &&
      next_draw_ns_.compare_exchange_strong(due, nanoseconds(now) + kRedrawEveryNs)) {
    draw(now);
  }
}

void Progress::draw(std::chrono::steady_clock::time_point now) {
  const std::lock_guard lock(drawing_);
  if (!active_) {
    return;
  }
  if (allowed_ && !allowed_()) {
    if (drawn_) {
      write_all(fd_, std::string(kClearLine));
      drawn_ = false;
    }
    return;
  }
  const auto done = static_cast<double>(done_.load());
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string line = fmt::format("{}rtrace: {}: {}", kClearLine, what_, progress_bytes(done));
  if (total_ && *total_ > 0) {
    line += fmt::format(" of {} ({:.0f}%)", progress_bytes(static_cast<double>(*total_)),
                        100.0 * done / static_cast<double>(*total_));
  }
  if (seconds > 0) {
    line += fmt::format(", {}/s", progress_bytes(done / seconds));
  }
  write_all(fd_, line);
  drawn_ = true;
}

void Progress::finish() {
  const std::lock_guard lock(drawing_);
  if (active_.exchange(false) && drawn_) {
    write_all(fd_, std::string(kClearLine));
  }
}

void Progress::interrupt() {
  const std::lock_guard lock(drawing_);
  if (active_ && drawn_) {
    write_all(fd_, std::string(kClearLine));
    drawn_ = false;
  }
}

void Progress::draw_only_while(std::function<bool()> allowed) {
  const std::lock_guard lock(drawing_);
  allowed_ = std::move(allowed);
}

std::size_t ProgressSource::read(std::span<std::uint8_t> buffer) {
  const std::size_t n = source_->read(buffer);
  if (n == 0) {
    progress_->finish();
  } else {
    progress_->advance(n);
  }
  return n;
}

}  // namespace rtrace
