/* Call contexts for rtrace (compatible with sp-rtrace's sp_rtrace_context.h).
 *
 * A program marks phases of its work as named contexts; every traced call made while a context
 * is entered carries that context's bit, so the post-processor can select calls by context
 * (`-C mask`). Link with -lrtrace-context. Without the tracer loaded these functions only keep
 * the bookkeeping; with it, they are replaced by the tracer's, which record the contexts.
 *
 * Contexts are per thread: entering a context in one thread does not mark another thread's calls.
 */
#ifndef RTRACE_SP_RTRACE_CONTEXT_H
#define RTRACE_SP_RTRACE_CONTEXT_H

#ifdef __cplusplus
extern "C" {
#endif

/* The number of contexts a process can create (the original allowed 3). */
#define SP_CONTEXT_MAX 32

/* Creates a context named `name`; returns its bit (1, 2, 4, ...) or 0 when all are taken. */
unsigned int sp_context_create(const char* name);

/* Marks the calls this thread makes from now on with `context_id`. Unknown ids are ignored. */
void sp_context_enter(unsigned int context_id);

/* Stops marking this thread's calls with `context_id`. */
void sp_context_exit(unsigned int context_id);

/* The mask of the contexts this thread is in. */
unsigned int sp_context_get_mask(void);

#ifdef __cplusplus
}
#endif

#endif
