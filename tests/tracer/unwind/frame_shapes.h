/* The two builds of frame_shapes.c: each runs `leaf(context)` at the bottom of a call chain
 * `depth` levels deep (plus the C library's qsort frames). */
#ifndef RTRACE_TESTS_TRACER_UNWIND_FRAME_SHAPES_H
#define RTRACE_TESTS_TRACER_UNWIND_FRAME_SHAPES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*chain_leaf)(void* context);
int chain_with_frame_pointers(int depth, chain_leaf leaf, void* context);
int chain_without_frame_pointers(int depth, chain_leaf leaf, void* context);

#ifdef __cplusplus
}
#endif

#endif
