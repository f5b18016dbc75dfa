// What a StackTrack process has told so far, kept per pid across the stream: its write count,
// time base, source files (name, properties) and checkpoint scopes (name, file, line).
//
// A checkpoint posts its SLOC/FLOC text only the first time it is written in a cycle; later hits
// rely on the reader keeping it, and `next_cycle` (a new write count) makes the process post it
// again, which replaces what was kept. Everything kept is counted against a budget shared by all
// processes of a stream so that hostile input cannot grow memory without bound.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

namespace rtrace::stacktrack {

struct SourceFile {
  std::string name;  // empty until its FLOC text has been seen
  std::uint64_t write_count = 0;
  std::int64_t property_count = 0;
  std::map<std::int64_t, std::string> properties;  // "prop=value" by property index
};

struct Scope {
  std::string name;  // the SLOC's text; empty until seen
  std::int64_t file = 0;
  std::int64_t line = 0;
  std::int64_t style = 0;
  std::uint64_t write_count = 0;
};

// Counts the bytes of kept context; throws ContextFull beyond its limit.
class ContextBudget {
 public:
  explicit ContextBudget(std::uint64_t limit) : limit_(limit) {}
  void add(std::uint64_t bytes);
  void release(std::uint64_t bytes) { used_ -= bytes < used_ ? bytes : used_; }
  std::uint64_t used() const { return used_; }
  std::uint64_t limit() const { return limit_; }

 private:
  std::uint64_t used_ = 0;
  std::uint64_t limit_;
};

struct ContextFull {
  std::uint64_t limit;
};

class ProcessContext {
 public:
  ProcessContext(std::uint64_t pid, ContextBudget& budget) : pid_(pid), budget_(&budget) {}

  std::uint64_t pid() const { return pid_; }
  std::uint64_t write_count() const { return write_count_; }
  // Ticks at which the process started (its TIMEINFO), and ticks per second (its TIMETYPE; 0
  // when unknown).
  std::uint64_t start_ticks() const { return start_ticks_; }
  std::uint64_t ticks_per_second() const { return ticks_per_second_; }
  // `ticks` as seconds since the start (ticks themselves while the divisor is unknown).
  double seconds_since_start(std::uint64_t ticks) const {
    const auto delta = static_cast<double>(static_cast<std::int64_t>(ticks - start_ticks_));
    return ticks_per_second_ == 0 ? delta : delta / static_cast<double>(ticks_per_second_);
  }

  const SourceFile* file(std::int64_t number) const;
  const Scope* scope(std::int64_t index) const;
  std::size_t file_count() const { return files_.size(); }
  std::size_t scope_count() const { return scopes_.size(); }

  // Updates from entries. A nullptr text keeps the name already known.
  void set_write_count(std::uint64_t count) { write_count_ = count; }
  void set_start(std::uint64_t ticks) { start_ticks_ = ticks; }
  void set_ticks_per_second(std::uint64_t ticks) { ticks_per_second_ = ticks; }
  void post_file(std::int64_t number, std::uint64_t write_count, std::int64_t property_count,
                 const std::string* name);
  void post_property(std::int64_t file, std::int64_t index, const std::string& text);
  void post_scope(std::int64_t index, const Scope& where, const std::string* name);

 private:
  void keep(std::string& kept, const std::string& text);

  std::uint64_t pid_;
  ContextBudget* budget_;
  std::uint64_t write_count_ = 0;
  std::uint64_t start_ticks_ = 0;
  std::uint64_t ticks_per_second_ = 0;
  std::unordered_map<std::int64_t, SourceFile> files_;
  std::unordered_map<std::int64_t, Scope> scopes_;
};

}  // namespace rtrace::stacktrack
