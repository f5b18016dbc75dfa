// A C++ program with one leak of its own among the blocks that runtimes keep for the process's
// lifetime: libstdc++'s emergency exception pool (allocated when libstdc++ is loaded), glibc's
// locale data (setlocale), stdout's buffer (printf), what dlopen records of a library. The
// suppressions test records it and expects its own leak alone to be reported.
#include <dlfcn.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

namespace {

// The program's own leak: kept in no variable that outlives main.
char* remember(std::size_t size) {
  return static_cast<char*>(std::malloc(size));
}

}  // namespace

int main() {
  std::setlocale(LC_ALL, "C.UTF-8");
  std::printf("%s\n", "runtime blocks");
  std::cout << "and an exception: " << std::flush;
  try {
    throw std::runtime_error(std::string(100, 'x'));
  } catch (const std::exception& error) {
    std::cout << error.what()[0] << std::endl;
  }
  void* library = dlopen("libz.so.1", RTLD_NOW);
  if (library == nullptr) {
    return 1;
  }
  char* own = remember(1234);
  own[0] = 'x';
  return own[0] == 'x' ? 0 : 1;
}
