// Blocks left at exit in shapes whose leak kinds valgrind memcheck and the leak check of
// `rtrace record --leak-check` must agree on (leak_kinds_agreement_test.cpp):
//  * a chain held by a global: still reachable;
//  * a chain, a cycle and a tree whose roots are dropped: each root (of the cycle, the node at the
//    lowest address) definitely lost, the rest indirectly lost;
//  * a block a global points into (past its start), and the block it points to: possibly lost;
//  * blocks held only by another thread's stack, that thread's TLS and the main thread's TLS:
//    still reachable;
//  * a block of size 0 held by a global: still reachable.
// The other thread waits in read() when main exits, so that both tools see its stack. One
// operator new (released) links the C++ runtime, whose emergency exception pool (still
// reachable) the tracer's start-up would otherwise load for one tool only.
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

struct Node {
  Node* left;
  Node* right;
  char payload[24];
};

Node* volatile g_chain;
char* volatile g_interior;
void* volatile g_empty;
__thread void* volatile t_main_storage;
__thread void* volatile t_thread_storage;
int g_ready[2];
int g_wait[2];

Node* node(Node* left, Node* right) {
  auto* made = static_cast<Node*>(std::malloc(sizeof(Node)));
  made->left = left;
  made->right = right;
  std::memset(made->payload, 0x5a, sizeof made->payload);
  return made;
}

__attribute__((noinline)) void drop(Node* root) {
  asm volatile("" : : "r"(root) : "memory");
}

// Three nodes in a ring, every pointer to them dropped on return.
__attribute__((noinline)) void lose_a_cycle() {
  Node* first = node(nullptr, nullptr);
  Node* second = node(first, nullptr);
  first->left = node(second, nullptr);
  drop(first);
}

__attribute__((noinline)) Node* tree(int depth) {
  return depth == 0 ? node(nullptr, nullptr) : node(tree(depth - 1), tree(depth - 1));
}

void* waiter(void* /*arg*/) {
  void* volatile on_stack = std::malloc(77);
  t_thread_storage = std::malloc(55);
  char byte = 0;
  if (::write(g_ready[1], &byte, 1) != 1 || ::read(g_wait[0], &byte, 1) < 0) {
    return nullptr;
  }
  return on_stack;
}

}  // namespace

int main() {
  int* volatile runtime = new int(1);
  delete runtime;
  g_chain = node(node(node(nullptr, nullptr), nullptr), nullptr);
  drop(node(node(node(node(nullptr, nullptr), nullptr), nullptr), nullptr));
  lose_a_cycle();
  drop(tree(2));
  Node* pointed_into = node(node(nullptr, nullptr), nullptr);
  g_interior = reinterpret_cast<char*>(pointed_into) + 8;
  pointed_into = nullptr;
  g_empty = std::malloc(0);
  t_main_storage = std::malloc(33);
  if (::pipe(g_ready) != 0 || ::pipe(g_wait) != 0) {
    return 1;
  }
  pthread_t thread;
  pthread_create(&thread, nullptr, waiter, nullptr);
  char byte = 0;
  if (::read(g_ready[0], &byte, 1) != 1) {
    return 1;
  }
  std::exit(0);
}
