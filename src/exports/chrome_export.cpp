// Chrome/Perfetto trace-event JSON (chrome://tracing, ui.perfetto.dev, speedscope): every call
// as an instant event on its process and thread, with its time to the nanosecond ("ts" in
// microseconds with three decimals) and its backtrace ("sf", an entry of the stackFrames table);
// every allocation also as a sample of the format's sampling profile ("samples": its stack, and
// its size as weight), which profile viewers draw as flame graphs; a counter track ("C") of live
// bytes per resource type.
//
// The whole trace by default. The events are written as they stream and the samples go to an
// unnamed temporary file until the end, so memory follows the distinct stacks (the stack frame
// table) and the live blocks, never the number of calls. --max-events cuts the events (and
// samples) after that many calls, and the file (otherData) and standard error say so.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/stack_exports.h"
#include "reports/calling_context_tree.h"
#include "reports/json_layout.h"

namespace rtrace::exporters {
namespace {

using reports::CallingContextTree;
using reports::Json;
using reports::json_text;

// Points of each counter track: its timeline's, at most this many evenly spread.
constexpr std::size_t kMaxCounterSamples = 1'000;

std::string_view kind_name(CallKind kind) {
  switch (kind) {
    case CallKind::Alloc:
      return "alloc";
    case CallKind::Free:
      return "free";
    case CallKind::Enter:
      return "enter";
    case CallKind::Exit:
      return "exit";
    case CallKind::Other:
      break;
  }
  return "other";
}

std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Looks names up by string_view without making a string.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

class ChromeExport final : public AllocationProfile {
 public:
  ChromeExport(OutputStream& out, const ExportOptions& options)
      : AllocationProfile(/*with_sites=*/false),
        out_(out),
        max_events_(options.max_events),
        samples_(std::tmpfile()) {
    if (samples_ == nullptr) {
      throw std::runtime_error("chrome export: cannot create a temporary file for the samples");
    }
    out_.buffer() += "{\"traceEvents\":[\n";
  }

  void process(const ProcessInfo& info) override {
    AllocationProfile::process(info);
    event(Json{{"name", "process_name"},
               {"ph", "M"},
               {"pid", info.pid},
               {"args", {{"name", json_text(info.name)}}}}
              .dump());
  }

  void resource_type(const ResourceType& type) override {
    AllocationProfile::resource_type(type);
    type_names_[effective_resource_type(type.id)] = quoted(type.type);
  }

  void call(const CallRecord& record) override {
    AllocationProfile::call(record);
    if (max_events_ != 0 && call_events_ >= max_events_) {
      ++left_out_;
      return;
    }
    ++call_events_;
    const Call& call = record.call;
    const std::uint32_t pid = call.pid != 0 ? call.pid : this->pid();
    const std::uint64_t tid = call.thread != 0 ? call.thread : pid;
    const std::string ts = micros(clock(call));
    const std::string& name = function_name(record.function);
    const auto type = type_names_.find(effective_resource_type(call.resource_type));
    const CallingContextTree::NodeId stack =
        record.frames.empty() ? CallingContextTree::kRoot : stacks_.intern(record.frames);
    std::string line =
        fmt::format(R"({{"name":{},"cat":{},"ph":"i","s":"t","ts":{},"pid":{},)"
                    R"("tid":{},)",
                    name, type == type_names_.end() ? "\"calls\"" : type->second, ts, pid, tid);
    if (stack != CallingContextTree::kRoot) {
      line += fmt::format(R"("sf":{},)", stack);
    }
    line += fmt::format(R"("args":{{"index":{},"kind":"{}","id":"{:#x}","size":{}}}}})", call.index,
                        kind_name(call.kind), call.resource_id, call.size);
    event(line);
    if (call.kind == CallKind::Alloc && stack != CallingContextTree::kRoot) {
      sample(fmt::format(R"({{"name":{},"ts":{},"pid":{},"tid":{},"sf":{},"weight":{}}})", name, ts,
                         pid, tid, stack, call.size));
    }
  }

  void finish() override {
    settle();
    for (const TypeProfile* type : types()) {
      const std::string name = quoted("live " + type->type.type);
      for (const TimelinePoint& point : spread(type->timeline.points(), kMaxCounterSamples)) {
        event(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"args":{{"live":{}}}}})", name,
                          micros(point.time_ns), pid(), point.value));
      }
    }
    out_.buffer() += "\n],\"stackFrames\":{";
    write_stack_frames();
    out_.buffer() += "},\n\"samples\":[";
    copy_samples();
    const Json other{{"producer", "rtrace export chrome"},
                     {"call_events", call_events_},
                     {"calls_left_out", left_out_},
                     {"max_events", max_events_}};
    out_.buffer() += "],\n\"displayTimeUnit\":\"ns\",\"otherData\":" + other.dump() + "}\n";
    out_.flush();
    if (left_out_ > 0) {
      // Asked for, but never silent.
      fmt::print(stderr,
                 "rtrace: chrome export: --max-events {} reached, {} later call{} left out\n",
                 max_events_, left_out_, left_out_ == 1 ? "" : "s");
    }
  }

 private:
  static std::string quoted(std::string_view text) { return json_text(text).dump(); }

  // The function's name as a JSON string, made once per distinct name.
  const std::string& function_name(std::string_view function) {
    auto found = function_names_.find(function);
    if (found == function_names_.end()) {
      found = function_names_.emplace(std::string(function), quoted(function)).first;
    }
    return found->second;
  }

  // Microseconds since the first timestamp, the unit of "ts", with the nanoseconds as three
  // decimals.
  std::string micros(std::uint64_t time_ns) const {
    const std::uint64_t since = time_ns == 0 ? 0 : time_ns - first_time_ns();
    return fmt::format("{}.{:03}", since / 1000, since % 1000);
  }

  // One event a line, in the order they come.
  void event(std::string_view json) {
    if (events_++ > 0) {
      out_.buffer() += ",\n";
    }
    out_.buffer() += json;
    out_.maybe_flush();
  }

  void sample(std::string_view json) {
    if (samples_written_++ > 0) {
      std::fputs(",\n", samples_.get());
    }
    std::fwrite(json.data(), 1, json.size(), samples_.get());
  }

  void copy_samples() {
    if (std::fflush(samples_.get()) != 0 || std::fseek(samples_.get(), 0, SEEK_SET) != 0) {
      throw std::runtime_error("chrome export: cannot read back the temporary file of samples");
    }
    out_.flush();
    std::vector<char> chunk(1 << 16);
    std::size_t read = 0;
    while ((read = std::fread(chunk.data(), 1, chunk.size(), samples_.get())) > 0) {
      out_.write(std::string_view(chunk.data(), read));
    }
    if (std::ferror(samples_.get()) != 0) {
      throw std::runtime_error("chrome export: cannot read back the temporary file of samples");
    }
  }

  // Each node of the stacks' tree: its frame's name, its module as category, its caller.
  void write_stack_frames() {
    for (CallingContextTree::NodeId node = 1; node < stacks_.size(); ++node) {
      const Frame& frame = stacks_.frame(stacks_.frame_index(node));
      std::string module;
      if (const Symbol* symbol = symbol_of(frame); symbol != nullptr) {
        module = base_name(symbol->module);
      }
      out_.buffer() +=
          fmt::format(R"({}"{}":{{"name":{},"category":{})", node == 1 ? "" : ",\n", node,
                      quoted(frame_name(frame)), quoted(module.empty() ? "?" : module));
      const CallingContextTree::NodeId parent = stacks_.parent(node);
      if (parent != CallingContextTree::kRoot) {
        out_.buffer() += fmt::format(R"(,"parent":"{}")", parent);
      }
      out_.buffer() += '}';
      out_.maybe_flush();
    }
  }

  OutputStream& out_;
  std::uint64_t max_events_;
  std::unique_ptr<std::FILE, FileCloser> samples_;
  CallingContextTree stacks_;
  std::unordered_map<std::uint32_t, std::string> type_names_;  // JSON strings
  std::unordered_map<std::string, std::string, NameHash, std::equal_to<>> function_names_;
  std::uint64_t events_ = 0;
  std::uint64_t samples_written_ = 0;
  std::uint64_t call_events_ = 0;
  std::uint64_t left_out_ = 0;
};

}  // namespace

ExportInfo chrome_export() {
  return {
      .name = "chrome",
      .description = "Chrome/Perfetto trace events: every call with its stack, live bytes per type",
      .suffix = ".json",
      .open = [](OutputStream& out, const ExportOptions& options) -> std::unique_ptr<TraceSink> {
        return std::make_unique<ChromeExport>(out, options);
      }};
}

}  // namespace rtrace::exporters
