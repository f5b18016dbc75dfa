// Registering the preloaded modules in the order LD_PRELOAD names them, so that resource type ids
// follow the order the user gave (`-e file:memory`: fd 1, fp 2, memory 3), not the order in which
// the modules happen to make their first call (the memory module's comes first, from the C
// library's own start-up).
#pragma once

namespace rtrace::tracer {

// The symbol each module exports (module_sdk.h, ModuleStart::register_in_order).
inline constexpr char kModuleRegisterSymbol[] = "rtrace_module_register";

// Calls every loaded tracing module's rtrace_module_register, in load order (the preloaded ones
// load in LD_PRELOAD order). A module without it registers at its first call, as before. From the
// session's set-up, under the tracer guard.
void register_preloaded_modules();

}  // namespace rtrace::tracer
