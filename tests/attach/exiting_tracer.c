// A stand-in librtrace-main.so whose constructor ends the process: the process exits while
// `rtrace record -p` is loading the tracer into it.
#include <unistd.h>

__attribute__((constructor)) static void end_the_process(void) {
  _exit(0);
}
