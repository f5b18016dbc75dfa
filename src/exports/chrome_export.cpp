// Chrome/Perfetto trace-event JSON (chrome://tracing, ui.perfetto.dev, speedscope): a counter
// track of live bytes per resource type and an instant event per call on its process and
// thread. Bounded: the first kMaxInstantEvents calls become events (written as they stream),
// each counter track has at most kMaxCounterSamples points spread over the trace; otherData
// says how many calls were left out.
#include <fmt/format.h>

#include <charconv>
#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/stack_exports.h"
#include "reports/json_layout.h"

namespace rtrace::exporters {
namespace {

using reports::Json;
using reports::json_text;

constexpr std::uint64_t kMaxInstantEvents = 100'000;
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

class ChromeExport final : public AllocationProfile {
 public:
  explicit ChromeExport(OutputStream& out) : out_(out) { out_.buffer() += "{\"traceEvents\":[\n"; }

  void process(const ProcessInfo& info) override {
    AllocationProfile::process(info);
    event({{"name", "process_name"},
           {"ph", "M"},
           {"pid", info.pid},
           {"args", {{"name", json_text(info.name)}}}});
  }

  void resource_type(const ResourceType& type) override {
    AllocationProfile::resource_type(type);
    type_names_[effective_resource_type(type.id)] = type.type;
  }

  void call(const CallRecord& record) override {
    AllocationProfile::call(record);
    const Call& call = record.call;
    if (instant_events_ >= kMaxInstantEvents) {
      ++dropped_events_;
      return;
    }
    ++instant_events_;
    const std::uint32_t pid = call.pid != 0 ? call.pid : this->pid();
    const auto type = type_names_.find(effective_resource_type(call.resource_type));
    event({{"name", json_text(record.function)},
           {"cat", json_text(type == type_names_.end() ? std::string_view("calls") : type->second)},
           {"ph", "i"},
           {"s", "t"},
           {"ts", micros(clock(call))},
           {"pid", pid},
           {"tid", call.thread != 0 ? call.thread : pid},
           {"args",
            {{"index", call.index},
             {"kind", kind_name(call.kind)},
             {"id", fmt::format("{:#x}", call.resource_id)},
             {"size", call.size}}}});
  }

  void finish() override {
    settle();
    for (const TypeProfile* type : types()) {
      for (const TimelinePoint& point : spread(type->timeline.points(), kMaxCounterSamples)) {
        event({{"name", json_text("live " + type->type.type)},
               {"ph", "C"},
               {"ts", micros(point.time_ns)},
               {"pid", pid()},
               {"args", {{"live", point.value}}}});
      }
    }
    const Json other{{"producer", "rtrace export chrome"},
                     {"instant_events", instant_events_},
                     {"calls_left_out", dropped_events_},
                     {"max_instant_events", kMaxInstantEvents}};
    // The events were written as they came: the document's end closes their array.
    out_.buffer() += R"(
],"displayTimeUnit":"ms","otherData":)" +
                     other.dump() + "}\n";
    out_.flush();
  }

 private:
  // Microseconds since the first timestamp, the unit of "ts", to the nanosecond: the number a
  // JSON reader makes of "MICROS.NNN" (the decimal text parsed, not a quotient of doubles, which
  // may round differently).
  double micros(std::uint64_t time_ns) const {
    const std::uint64_t since = time_ns == 0 ? 0 : time_ns - first_time_ns();
    const std::string text = fmt::format("{}.{:03}", since / 1000, since % 1000);
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }

  // One event a line, in the order they come.
  void event(const Json& json) {
    if (events_++ > 0) {
      out_.buffer() += ",\n";
    }
    out_.buffer() += json.dump();
    out_.maybe_flush();
  }

  OutputStream& out_;
  std::unordered_map<std::uint32_t, std::string> type_names_;
  std::uint64_t events_ = 0;
  std::uint64_t instant_events_ = 0;
  std::uint64_t dropped_events_ = 0;
};

}  // namespace

ExportInfo chrome_export() {
  return {
      .name = "chrome",
      .description = "Chrome/Perfetto trace-event JSON: live bytes per type, one event per call",
      .suffix = ".json",
      .open = [](OutputStream& out, const ExportOptions& /*options*/)
          -> std::unique_ptr<TraceSink> { return std::make_unique<ChromeExport>(out); }};
}

}  // namespace rtrace::exporters
