/* OWN_FRAME marks a function that must stay a frame of its own in the stacks a test walks: never
 * inlined into its callers, never merged with another function of the same body, never
 * specialised for its callers. GCC's noipa says all of that. Clang has no noipa; with noinline it
 * keeps the frame, and it merges identical functions only when asked (-fmerge-functions). */
#pragma once

#if defined(__clang__)
#define OWN_FRAME __attribute__((noinline))
#else
#define OWN_FRAME __attribute__((noipa))
#endif
