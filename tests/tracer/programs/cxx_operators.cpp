// Every form of operator new and delete, and a new[] released by free (a bug the trace shows).
// Sizes: 11 new/delete, 12 new[]/delete[], 13 nothrow new/delete, 14 nothrow new[]/delete[],
// 15 aligned new/delete, 16 aligned new[]/delete[], 17 sized delete, 18 new[] freed by free.
#include <cstdlib>
#include <new>

static void* volatile keep;

int main() {
  keep = ::operator new(11);
  ::operator delete(keep);
  keep = ::operator new[](12);
  ::operator delete[](keep);
  keep = ::operator new(13, std::nothrow);
  ::operator delete(keep, std::nothrow);
  keep = ::operator new[](14, std::nothrow);
  ::operator delete[](keep, std::nothrow);
  keep = ::operator new (15, std::align_val_t{64});
  ::operator delete (keep, std::align_val_t{64});
  keep = ::operator new[](16, std::align_val_t{64});
  ::operator delete[](keep, std::align_val_t{64});
  keep = ::operator new(17);
  ::operator delete (keep, std::size_t{17});
  keep = ::operator new[](18);
  std::free(keep);
  return 0;
}
