/* Calls manytypes_record_all of the preloaded test module librtrace-manytypes.so (found at run
 * time: the program does not link it). Exits 2 when the module is not loaded. */
#include <dlfcn.h>

int main(void) {
  void (*record_all)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "manytypes_record_all");
  if (record_all == 0) return 2;
  record_all();
  return 0;
}
