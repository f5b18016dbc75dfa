/* The custom allocator API of rtrace: how a program, or a pool allocator of its own, tells the
 * tracer about the blocks it hands out and takes back, and about its pools' lifetime.
 *
 * Include this header and call the macros below; nothing else is needed, no library to link. The
 * functions are declared weak: while the program runs without the tracer they are null and each
 * macro is one test of a pointer, nothing more. Traced with the pool module (`rtrace record -e
 * memory,pool`, librtrace-pool.so preloaded), the dynamic linker binds them to the tracer's, which
 * records each call as an allocation or a release of the resource type `pool` under the pool's
 * own name, with the caller's backtrace: leak lists (`rtrace process -l`) and reports show the
 * pool's blocks with the sites that asked the pool for them.
 *
 * The weak references need a dynamically linked, position-independent program (Debian's default);
 * they are bound when the program starts, so the calls are recorded in a program started by
 * `rtrace record` (not after an attach with `rtrace record -p`).
 *
 * Code written for heaptrack's heaptrack_api.h or for valgrind's memcheck.h mempool client
 * requests works after changing the include to this header: the macros of the same names are
 * defined here with the same meaning (unless the other header was included as well).
 */
#ifndef RTRACE_RTRACE_API_H
#define RTRACE_RTRACE_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A pool starts: `pool` is its handle (any address that identifies it), `name` what the traces
 * call its allocations (copied; NULL for the default, "mempool"). */
void rtrace_pool_create(const void* pool, const char* name) __attribute__((weak));
/* A pool ends: every block still allocated in it is released (recorded as `rtrace_pool_destroy`).
 */
void rtrace_pool_destroy(const void* pool) __attribute__((weak));
/* `block` of `size` bytes was handed out by `pool` (a pool never created counts as "mempool"). */
void rtrace_pool_alloc(const void* pool, const void* block, size_t size) __attribute__((weak));
/* `block` went back to `pool`. */
void rtrace_pool_free(const void* pool, const void* block) __attribute__((weak));
/* `old` of `pool` was resized to `size` bytes at `block` (a release of `old`, an allocation of
 * `block`). */
void rtrace_pool_realloc(const void* pool, const void* old, const void* block, size_t size)
    __attribute__((weak));
/* A block of an allocator without pools (heaptrack's and memcheck's malloc-like block):
 * recorded as `rtrace_block_alloc`, `rtrace_block_free` and `rtrace_block_realloc`. */
void rtrace_block_alloc(const void* block, size_t size) __attribute__((weak));
void rtrace_block_free(const void* block) __attribute__((weak));
void rtrace_block_realloc(const void* old, const void* block, size_t size) __attribute__((weak));

#ifdef __cplusplus
}
#endif

/* Calls `function` with `arguments` when the tracer defines it. */
#define RTRACE_API_CALL(function, arguments) \
  do {                                       \
    if (function) {                          \
      function arguments;                    \
    }                                        \
  } while (0)

#define RTRACE_POOL_CREATE(pool, name) RTRACE_API_CALL(rtrace_pool_create, ((pool), (name)))
#define RTRACE_POOL_DESTROY(pool) RTRACE_API_CALL(rtrace_pool_destroy, ((pool)))
#define RTRACE_POOL_ALLOC(pool, block, size) \
  RTRACE_API_CALL(rtrace_pool_alloc, ((pool), (block), (size)))
#define RTRACE_POOL_FREE(pool, block) RTRACE_API_CALL(rtrace_pool_free, ((pool), (block)))
#define RTRACE_POOL_REALLOC(pool, old, block, size) \
  RTRACE_API_CALL(rtrace_pool_realloc, ((pool), (old), (block), (size)))
#define RTRACE_BLOCK_ALLOC(block, size) RTRACE_API_CALL(rtrace_block_alloc, ((block), (size)))
#define RTRACE_BLOCK_FREE(block) RTRACE_API_CALL(rtrace_block_free, ((block)))
#define RTRACE_BLOCK_REALLOC(old, block, size) \
  RTRACE_API_CALL(rtrace_block_realloc, ((old), (block), (size)))

/* heaptrack_api.h's calls: a block of a custom allocator allocated, resized (ptr_in to ptr_out),
 * released. */
#ifndef heaptrack_report_alloc
#define heaptrack_report_alloc(ptr, size) RTRACE_BLOCK_ALLOC((ptr), (size))
#define heaptrack_report_realloc(ptr_in, size, ptr_out) \
  RTRACE_BLOCK_REALLOC((ptr_in), (ptr_out), (size))
#define heaptrack_report_free(ptr) RTRACE_BLOCK_FREE((ptr))
#endif

/* valgrind memcheck.h's client requests for custom allocators. The red zones and the zeroing flag
 * concern memcheck's checks of the bytes, not what a block is: they are ignored. */
#ifndef VALGRIND_CREATE_MEMPOOL
#define VALGRIND_CREATE_MEMPOOL(pool, rzB, is_zeroed) \
  do {                                                \
    (void)(rzB);                                      \
    (void)(is_zeroed);                                \
    RTRACE_POOL_CREATE((pool), NULL);                 \
  } while (0)
#define VALGRIND_DESTROY_MEMPOOL(pool) RTRACE_POOL_DESTROY((pool))
#define VALGRIND_MEMPOOL_ALLOC(pool, addr, size) RTRACE_POOL_ALLOC((pool), (addr), (size))
#define VALGRIND_MEMPOOL_FREE(pool, addr) RTRACE_POOL_FREE((pool), (addr))
#define VALGRIND_MEMPOOL_CHANGE(pool, addrA, addrB, size) \
  RTRACE_POOL_REALLOC((pool), (addrA), (addrB), (size))
#define VALGRIND_MALLOCLIKE_BLOCK(addr, sizeB, rzB, is_zeroed) \
  do {                                                         \
    (void)(rzB);                                               \
    (void)(is_zeroed);                                         \
    RTRACE_BLOCK_ALLOC((addr), (sizeB));                       \
  } while (0)
#define VALGRIND_FREELIKE_BLOCK(addr, rzB) \
  do {                                     \
    (void)(rzB);                           \
    RTRACE_BLOCK_FREE((addr));             \
  } while (0)
#endif

#endif
