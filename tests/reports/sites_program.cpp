// Traced by the report tests: an allocation wrapper called from two places, an allocation in a
// template's member, an allocator call inlined into its caller, blocks released by the wrong
// allocator family, and a leak whose block count is the first argument (--diff's growth).
#include <cstdlib>
#include <new>
#include <utility>

extern "C" __attribute__((noinline)) void* xmalloc(std::size_t size) {
  void* block = std::malloc(size);
  if (block == nullptr) {
    std::abort();
  }
  return block;
}

__attribute__((noinline)) void* make_record(std::size_t size) {
  return xmalloc(size);
}

template <typename T>
struct Pool {
  __attribute__((noinline)) T* grab() { return new T[4]; }
};

static inline __attribute__((always_inline)) void* inlined_alloc(std::size_t size) {
  return std::malloc(size);
}

__attribute__((noinline)) void* via_inline() {
  return inlined_alloc(48);
}

__attribute__((noinline)) void leak_blocks(int count) {
  for (int i = 0; i < count; ++i) {
    void* volatile block = std::malloc(100);
    (void)block;
  }
}

int main(int argc, char** argv) {
  leak_blocks(argc > 1 ? std::atoi(argv[1]) : 1);
  void* small = make_record(1000);
  void* large = make_record(3000);
  std::free(small);
  std::free(large);
  std::pair<int, long>* pairs = Pool<std::pair<int, long>>().grab();
  std::free(pairs);  // new[] released by free
  int* one = new int(5);
  delete[] one;  // new released by delete[]
  int* raw = static_cast<int*>(std::malloc(sizeof(int)));
  delete raw;  // malloc released by delete
  std::free(via_inline());
  return 0;
}
