// The one way the tracer finds the function it wraps: the next definition of `name` after the
// calling library (dlsym RTLD_NEXT). Modules call it once per function, when they resolve their
// table of real functions at load or at their first interposed call, never in a wrapper's hot
// path or from a signal handler (dlsym takes the loader lock and may allocate).
#pragma once

#include <dlfcn.h>

namespace rtrace::tracer {

template <typename Function>
void find_real(Function& target, const char* name) {
  target = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace rtrace::tracer
