// `rtrace report` and `report --json`: any format, in index order, into the report builder.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "io/diagnostics.h"
#include "pipeline/pipeline.h"
#include "reports/json_report.h"
#include "reports/report_builder.h"
#include "reports/text_report.h"

namespace {

class SilentDiagnostics final : public rtrace::Diagnostics {
 protected:
  void report(std::string_view, std::uint64_t, std::string_view) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<rtrace::StageSpec> stages{{"expand", ""}};
  rtrace::reports::ReportBuilder builder;
  SilentDiagnostics diagnostics;
  try {
    const std::unique_ptr<rtrace::InputStream> input = rtrace::fuzz::open_fuzz_input({data, size});
    rtrace::Pipeline pipeline(stages, rtrace::StageContext{}, builder);
    (void)pipeline.run(*input, diagnostics);
  } catch (const rtrace::InputError&) {
    return 0;  // not a trace: no report
  }
  const rtrace::reports::RenderOptions render{.top = 10};
  (void)rtrace::reports::render_text(builder.data(), nullptr, render);
  (void)rtrace::reports::render_json(builder.data(), nullptr, render);
  return 0;
}
