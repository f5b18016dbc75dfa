// Blocks left at exit in each of valgrind memcheck's leak kinds, from C and C++ allocators and
// from several threads, so that rtrace's leak totals can be compared with memcheck's
// definitely + indirectly + possibly lost + still reachable (valgrind_agreement_test.cpp):
//  * definitely lost: blocks whose every pointer is dropped;
//  * indirectly lost: a linked list whose head is dropped (the nodes after it);
//  * possibly lost: blocks only pointed into (past their start);
//  * still reachable: blocks a global still points to.
// Plenty is released properly too, some of it by another thread than the one that allocated it.
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

struct Node {
  Node* next;
  char payload[40];
};

void* volatile reachable[4];
char* volatile interior[2];
void* volatile handed_over[4];

// Keeps the compiler from proving a block unused and removing its allocation.
void touch(void* block, std::size_t size) {
  std::memset(block, 0x5a, size);
  asm volatile("" : : "r"(block) : "memory");
}

__attribute__((noinline)) void lose_a_list(int length) {
  Node* head = nullptr;
  for (int i = 0; i < length; ++i) {
    Node* node = new Node{};
    node->next = head;
    head = node;
  }
  touch(head->payload, sizeof head->payload);
  // The head goes out of scope: itself definitely lost, the rest indirectly.
}

__attribute__((noinline)) void drop(std::size_t size) {
  void* block = std::malloc(size);
  touch(block, size);
}

void* worker(void* arg) {
  const auto self = reinterpret_cast<std::uintptr_t>(arg);
  for (int i = 0; i < 200; ++i) {
    char* array = new char[64 + i];
    touch(array, 64 + i);
    if (i % 50 == 7) {
      continue;  // 4 lost arrays per thread
    }
    delete[] array;
  }
  // Freed by main, after the join: a cross-thread release.
  handed_over[self] = std::calloc(self + 1, 100);
  return nullptr;
}

}  // namespace

int main() {
  lose_a_list(5);
  for (std::size_t size : {13U, 700U, 4096U}) {
    drop(size);
  }
  char* grown = static_cast<char*>(std::malloc(10));
  grown = static_cast<char*>(std::realloc(grown, 5000));
  touch(grown, 5000);
  interior[0] = grown + 100;  // possibly lost: only an interior pointer is left
  char* interior_array = new char[300];
  touch(interior_array, 300);
  interior[1] = interior_array + 1;
  reachable[0] = std::malloc(1234);
  reachable[1] = new int[77];
  reachable[2] = std::calloc(3, 333);
  reachable[3] = new Node{};

  pthread_t threads[4];
  for (std::uintptr_t i = 0; i < 4; ++i) {
    pthread_create(&threads[i], nullptr, worker, reinterpret_cast<void*>(i));
  }
  for (pthread_t thread : threads) {
    pthread_join(thread, nullptr);
  }
  for (void* block : handed_over) {
    std::free(block);
  }
  std::puts("done");
  return 0;
}
