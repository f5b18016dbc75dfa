// The C++ program of the package's smoke test: one std::vector kept alive through a leaked
// object made with new, one object made and deleted properly.
#include <cstdio>
#include <vector>

struct Cache {
  std::vector<int> entries;
};

static Cache* make_cache(int size) {
  auto* cache = new Cache;
  cache->entries.resize(size);
  return cache;
}

int main() {
  Cache* kept = make_cache(1000);  // never deleted
  Cache* dropped = make_cache(10);
  delete dropped;
  std::printf("%zu\n", kept->entries.size());
  return 0;
}
