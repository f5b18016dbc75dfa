// Chrome/Perfetto trace-event JSON (chrome://tracing, ui.perfetto.dev, speedscope): a counter
// track of live bytes per resource type and an instant event per call on its process and
// thread. Bounded: the first kMaxInstantEvents calls become events (written as they stream),
// each counter track has at most kMaxCounterSamples points spread over the trace; otherData
// says how many calls were left out.
#include <fmt/format.h>

#include <unordered_map>

#include "exports/allocation_profile.h"
#include "exports/stack_exports.h"
#include "io/json_string.h"

namespace rtrace::exporters {
namespace {

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
    event(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":{}}}}})",
                      info.pid, json_string(info.name)));
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
    event(fmt::format(
        R"({{"name":{},"cat":{},"ph":"i","s":"t","ts":{},"pid":{},"tid":{},"args":{{"index":{},"kind":"{}","id":"{:#x}","size":{}}}}})",
        json_string(record.function),
        json_string(type == type_names_.end() ? std::string_view("calls") : type->second),
        micros(clock(call)), pid, call.thread != 0 ? call.thread : pid, call.index,
        kind_name(call.kind), call.resource_id, call.size));
  }

  void finish() override {
    settle();
    for (const TypeProfile* type : types()) {
      for (const TimelinePoint& point : spread(type->timeline.points(), kMaxCounterSamples)) {
        event(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"args":{{"live":{}}}}})",
                          json_string("live " + type->type.type), micros(point.time_ns), pid(),
                          point.value));
      }
    }
    out_.buffer() += fmt::format(
        "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{{\"producer\":\"rtrace export chrome\","
        "\"instant_events\":{},\"calls_left_out\":{},\"max_instant_events\":{}}}}}\n",
        instant_events_, dropped_events_, kMaxInstantEvents);
    out_.flush();
  }

 private:
  // Microseconds since the first timestamp, the unit of "ts".
  std::string micros(std::uint64_t time_ns) const {
    const std::uint64_t since = time_ns == 0 ? 0 : time_ns - first_time_ns();
    return fmt::format("{}.{:03}", since / 1000, since % 1000);
  }

  void event(const std::string& json) {
    if (events_++ > 0) {
      out_.buffer() += ",\n";
    }
    out_.buffer() += json;
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
