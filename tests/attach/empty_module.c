// A stand-in tracing module (nothing in it): the recorder only needs the file to be there.
void rtrace_empty_module(void);
void rtrace_empty_module(void) {}
