// A program with a pool allocator of its own, instrumented with the custom allocator API
// (rtrace/rtrace_api.h) three ways: its own calls (a named pool), valgrind's mempool client
// requests (an unnamed pool it destroys) and heaptrack's report calls (malloc-like blocks).
// Prints every record the trace must show, in order: "name size 0xblock" for an allocation,
// "name 0xblock" for a release; then "leaked name size 0xblock" for each block it never gave back.
// Runs the same without the tracer (the API's functions are then null).
#include <rtrace/rtrace_api.h>
#include <stdio.h>
#include <stdlib.h>

struct pool {
  char* arena;
  size_t used;
  size_t size;
};

static struct pool* pool_new(const char* name, size_t size) {
  struct pool* pool = malloc(sizeof *pool);
  pool->arena = malloc(size);
  pool->used = 0;
  pool->size = size;
  if (name != NULL) {
    RTRACE_POOL_CREATE(pool, name);
  } else {
    VALGRIND_CREATE_MEMPOOL(pool, 0, 0);
  }
  return pool;
}

// Hands out the next `size` bytes of the arena (a bump allocator: nothing is reused).
static void* pool_take(struct pool* pool, size_t size) {
  if (pool->used + size > pool->size) {
    return NULL;
  }
  void* block = pool->arena + pool->used;
  pool->used += (size + 15) & ~(size_t)15;
  return block;
}

// The pool's allocation site: what the API records as the block's first frame.
__attribute__((noinline)) static void* pool_alloc(struct pool* pool, size_t size) {
  void* block = pool_take(pool, size);
  RTRACE_POOL_ALLOC(pool, block, size);
  return block;
}

__attribute__((noinline)) static void pool_free(struct pool* pool, void* block) {
  RTRACE_POOL_FREE(pool, block);
}

__attribute__((noinline)) static void* node_alloc(struct pool* pool, size_t size) {
  void* block = pool_take(pool, size);
  VALGRIND_MEMPOOL_ALLOC(pool, block, size);
  return block;
}

__attribute__((noinline)) static void* node_grow(struct pool* pool, void* old, size_t size) {
  void* block = pool_take(pool, size);
  VALGRIND_MEMPOOL_CHANGE(pool, old, block, size);
  return block;
}

__attribute__((noinline)) static void node_free(struct pool* pool, void* block) {
  VALGRIND_MEMPOOL_FREE(pool, block);
}

__attribute__((noinline)) static void* chunk_alloc(struct pool* pool, size_t size) {
  void* block = pool_take(pool, size);
  heaptrack_report_alloc(block, size);
  return block;
}

__attribute__((noinline)) static void chunk_free(void* block) {
  heaptrack_report_free(block);
}

static void pool_delete(struct pool* pool) {
  VALGRIND_DESTROY_MEMPOOL(pool);
  free(pool->arena);
  free(pool);
}

int main(void) {
  // The named pool: five strings, two given back, the pool never destroyed.
  struct pool* strings = pool_new("string_pool", 4096);
  void* text[5];
  for (int i = 0; i < 5; ++i) {
    text[i] = pool_alloc(strings, 32);
    printf("string_pool 32 %p\n", text[i]);
  }
  pool_free(strings, text[1]);
  printf("string_pool %p\n", text[1]);
  pool_free(strings, text[3]);
  printf("string_pool %p\n", text[3]);

  // The unnamed pool (valgrind's requests): four nodes, one freed, one grown, then the pool
  // destroyed with three blocks in it (released in address order).
  struct pool* nodes = pool_new(NULL, 4096);
  void* node[4];
  for (int i = 0; i < 4; ++i) {
    node[i] = node_alloc(nodes, 48);
    printf("mempool 48 %p\n", node[i]);
  }
  node_free(nodes, node[0]);
  printf("mempool %p\n", node[0]);
  void* grown = node_grow(nodes, node[2], 96);
  printf("mempool %p\nmempool 96 %p\n", node[2], grown);
  void* left[] = {node[1], node[3], grown};
  pool_delete(nodes);
  for (int i = 0; i < 3; ++i) {
    printf("rtrace_pool_destroy %p\n", left[i]);
  }

  // Malloc-like blocks (heaptrack's calls): two chunks, one released.
  struct pool* chunks = pool_new("chunks", 4096);
  void* first = chunk_alloc(chunks, 16);
  printf("rtrace_block_alloc 16 %p\n", first);
  void* second = chunk_alloc(chunks, 16);
  printf("rtrace_block_alloc 16 %p\n", second);
  chunk_free(first);
  printf("rtrace_block_free %p\n", first);

  printf("leaked string_pool 32 %p\nleaked string_pool 32 %p\nleaked string_pool 32 %p\n",
         text[0], text[2], text[4]);
  printf("leaked rtrace_block_alloc 16 %p\n", second);
  return 0;
}
