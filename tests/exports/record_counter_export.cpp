// A test-only export: counts the records of each kind and writes one `kind count` line each.
// It overrides only what it counts, and finish(): everything else is the sink's default.
#include <fmt/format.h>

#include "exports/export_registry.h"

namespace rtrace::test {
namespace {

class RecordCounter final : public TraceSink {
 public:
  explicit RecordCounter(OutputStream& out) : out_(out) {}

  void module(const ModuleInfo& /*module*/) override { ++modules_; }
  void mapping(const Mapping& /*mapping*/) override { ++mappings_; }
  void call(const CallRecord& record) override {
    ++calls_;
    frames_ += record.frames.size();
  }
  void finish() override {
    out_.buffer() += fmt::format("modules {}\nmappings {}\ncalls {}\nframes {}\n", modules_,
                                 mappings_, calls_, frames_);
    out_.flush();
  }

 private:
  OutputStream& out_;
  std::uint64_t modules_ = 0;
  std::uint64_t mappings_ = 0;
  std::uint64_t calls_ = 0;
  std::uint64_t frames_ = 0;
};

}  // namespace

ExportInfo record_counter_export() {
  return {.name = "record-count",
          .description = "number of records of each kind",
          .suffix = ".count.txt",
          .open = [](OutputStream& out, const ExportOptions& /*options*/)
              -> std::unique_ptr<TraceSink> { return std::make_unique<RecordCounter>(out); }};
}

}  // namespace rtrace::test
