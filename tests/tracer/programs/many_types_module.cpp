// librtrace-manytypes.so: a test tracing module that registers more resource types than the
// protocol can name (40 > 32) and, when the program calls manytypes_record_all, records one
// allocation of each. The registry must keep the first ones, hand out 0 for the others and never
// record a call of type 0.
#include <cstdint>
#include <cstdio>

#include "protocol/sprtrace_packets.h"
#include "tracer/api/module_sdk.h"
#include "tracer/api/tracer_api.h"

namespace {

struct ManyTypesModule {};  // the tag of this module's own guard

constexpr int kTypes = 40;

char g_type_names[kTypes][16];
char g_call_names[kTypes][24];
std::uint32_t g_ids[kTypes];

bool g_registered = false;

void register_many_types() {
  if (g_registered) {
    return;
  }
  g_registered = true;
  rtrace_register_module("manytypes", 1, 0);
  for (int i = 0; i < kTypes; ++i) {
    std::snprintf(g_type_names[i], sizeof g_type_names[i], "type%02d", i);
    std::snprintf(g_call_names[i], sizeof g_call_names[i], "make_type%02d", i);
    g_ids[i] = rtrace_register_resource(g_type_names[i], "a test resource type", 0);
  }
  rtrace_module_ready();
}

// When the session was set up before this library loaded (module_order.h calls
// rtrace_module_register only for the modules loaded by then).
__attribute__((constructor)) void start_many_types() {
  const rtrace::tracer::GuardScope guard;
  if (rtrace_bootstrap() == 1) {
    register_many_types();
  }
}

}  // namespace

// From the session's set-up, in LD_PRELOAD order, as every module registers (module_sdk.h).
extern "C" RTRACE_EXPORT void rtrace_module_register() {
  register_many_types();
}

// One allocation of every type, id 0x1000 + i, size 100 + i, named make_typeNN.
extern "C" RTRACE_EXPORT void manytypes_record_all() {
  if (!rtrace::tracer::tracing_now<ManyTypesModule>()) {
    return;
  }
  const rtrace::tracer::GuardScope guard;
  for (int i = 0; i < kTypes; ++i) {
    const RtraceCall call{g_ids[i],     rtrace::sprtrace::kCallAlloc, g_call_names[i],
                          100U + i,     0x1000U + i,                  nullptr,
                          0};
    rtrace_record(&call, __builtin_return_address(0));
  }
}
