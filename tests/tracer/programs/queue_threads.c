/* Cross-thread frees through queues: each of THREADS threads allocates BLOCKS blocks and hands
 * every one to the next thread through that thread's queue (a mutex-protected list threaded
 * through the blocks themselves); the receiver frees what it gets, except every 101st block of
 * each sender, which it keeps on purpose. Freed addresses are reused at once by the other
 * threads' mallocs. Block sizes are in [3000, 4000).
 * Usage: queue_threads <threads> <blocks per thread>
 * Prints one line per kept block: kept=0xADDRESS */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64
#define KEEP_EVERY 101

struct block {
  struct block* next;
  int keep;
};

struct queue {
  pthread_mutex_t lock;
  struct block* head;
};

static struct queue queues[MAX_THREADS];
static int threads;
static long blocks;
static struct block* kept[MAX_THREADS * 1000];
static atomic_int kept_count;

static void push(struct queue* queue, struct block* b) {
  pthread_mutex_lock(&queue->lock);
  b->next = queue->head;
  queue->head = b;
  pthread_mutex_unlock(&queue->lock);
}

/* Frees (or keeps) everything in the queue; returns how many blocks it took. */
static long drain(struct queue* queue) {
  pthread_mutex_lock(&queue->lock);
  struct block* b = queue->head;
  queue->head = NULL;
  pthread_mutex_unlock(&queue->lock);
  long taken = 0;
  while (b != NULL) {
    struct block* next = b->next;
    if (b->keep) {
      kept[atomic_fetch_add(&kept_count, 1)] = b;
    } else {
      free(b);
    }
    b = next;
    ++taken;
  }
  return taken;
}

static void* worker(void* arg) {
  const int self = (int)(size_t)arg;
  struct queue* next = &queues[(self + 1) % threads];
  long received = 0;
  for (long k = 0; k < blocks; ++k) {
    struct block* b = malloc(3000 + (size_t)((self * blocks + k) % 1000));
    b->keep = k % KEEP_EVERY == 0;
    push(next, b);
    received += drain(&queues[self]);
  }
  while (received < blocks) {
    received += drain(&queues[self]);
    sched_yield();
  }
  return NULL;
}

int main(int argc, char** argv) {
  threads = argc > 1 ? atoi(argv[1]) : 8;
  blocks = argc > 2 ? atol(argv[2]) : 10000;
  if (threads < 1 || threads > MAX_THREADS || blocks < 1 || blocks > 1000 * KEEP_EVERY) return 2;
  pthread_t ids[MAX_THREADS];
  for (int i = 0; i < threads; ++i) pthread_mutex_init(&queues[i].lock, NULL);
  for (int i = 0; i < threads; ++i) pthread_create(&ids[i], NULL, worker, (void*)(size_t)i);
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  for (int i = 0; i < atomic_load(&kept_count); ++i) printf("kept=%p\n", (void*)kept[i]);
  return 0;
}
