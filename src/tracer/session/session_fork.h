// The session's fork handlers (session_fork.cpp).
#pragma once

namespace rtrace::tracer {

// Registers them with pthread_atfork; once, when the session is set up.
void install_fork_handlers();

}  // namespace rtrace::tracer
