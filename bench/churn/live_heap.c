/* A heap left full at exit, for the leak check's own cost (bench/leak-check.sh): BLOCKS blocks
 * of 48 bytes, half in one list a global holds (still reachable), half in lists of 8 whose heads
 * are dropped (definitely lost, the rest indirectly lost), then exit.
 *
 *   rtrace-live-heap [BLOCKS]      (default 1,000,000)
 */
#include <stdlib.h>

struct node {
  struct node* next;
  char payload[40];
};

static struct node* volatile g_kept;

static struct node* push(struct node* next) {
  struct node* made = malloc(sizeof *made);
  if (made == NULL) {
    exit(1);
  }
  made->next = next;
  return made;
}

int main(int argc, char** argv) {
  const long blocks = argc > 1 ? atol(argv[1]) : 1000000;
  struct node* kept = NULL;
  for (long i = 0; i < blocks / 2; ++i) {
    kept = push(kept);
  }
  g_kept = kept;
  for (long i = 0; i < blocks / 2; i += 8) {
    struct node* lost = NULL;
    for (int j = 0; j < 8; ++j) {
      lost = push(lost);
    }
    __asm__ volatile("" : : "r"(lost) : "memory");
  }
  return 0;
}
