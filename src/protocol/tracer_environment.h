// The environment variables through which the recorder starts the tracer in a traced process:
// the recorder sets them (recorder/record_session.cpp), the tracer reads them
// (tracer/session/session_bootstrap.cpp, tracer/core/environment.cpp). Header-only, so that the
// tracer can use it.
#pragma once

namespace rtrace::tracer_environment {

// The tracer's options, a `key=value` list (protocol/tracer_options.h).
inline constexpr char kOptionsVariable[] = "RTRACE_OPTIONS";
// The recorder's listening UNIX socket; absent or empty: the tracer writes its own files.
inline constexpr char kSocketVariable[] = "RTRACE_SOCKET";

// The variable that names the first traced process of a recording. The recorder sets it to a
// run of zeros (unclaimed, wide enough for any pid) so that the first traced process can write
// its pid over them in place: the program's own copies of the environment (bash's exported
// variables) then carry it to every child.
inline constexpr char kRootPidVariable[] = "RTRACE_ROOT_PID";
inline constexpr int kRootPidWidth = 20;

// A number that seeds the memory module's sampling generators (sample-bytes=N), so that a test
// records the same samples at every run; without it each process seeds them from the clock.
inline constexpr char kSampleSeedVariable[] = "RTRACE_SAMPLE_SEED";

}  // namespace rtrace::tracer_environment
