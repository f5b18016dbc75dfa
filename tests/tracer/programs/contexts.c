/* The context API: 33 creations (the last returns 0), nested contexts, per-thread masks.
 * Sizes: 100 (none), 101 (@1), 103 (@3), 102 (@2), 104 (none), 105 (@4 in another thread),
 * 106 (main thread, none, while the other thread is in @4). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rtrace/sp_rtrace_context.h"

static void* volatile keep;
static unsigned ids[33];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int stage;

static void wait_stage(int wanted) {
  pthread_mutex_lock(&lock);
  while (stage < wanted)
    pthread_cond_wait(&cond, &lock);
  pthread_mutex_unlock(&lock);
}

static void set_stage(int value) {
  pthread_mutex_lock(&lock);
  stage = value;
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
}

static void* other_thread(void* arg) {
  (void)arg;
  sp_context_enter(ids[2]);
  keep = malloc(105);
  set_stage(1);
  wait_stage(2);
  sp_context_exit(ids[2]);
  return NULL;
}

int main(void) {
  char name[16];
  for (int i = 0; i < 33; ++i) {
    snprintf(name, sizeof name, "ctx%d", i + 1);
    ids[i] = sp_context_create(name);
  }
  keep = malloc(100);
  sp_context_enter(ids[0]);
  keep = malloc(101);
  sp_context_enter(ids[1]);
  keep = malloc(103);
  sp_context_exit(ids[0]);
  keep = malloc(102);
  sp_context_exit(ids[1]);
  keep = malloc(104);
  pthread_t thread;
  pthread_create(&thread, NULL, other_thread, NULL);
  wait_stage(1);
  keep = malloc(106);
  set_stage(2);
  pthread_join(thread, NULL);
  printf("first=%u second=%u third=%u last=%u thirty-third=%u\n", ids[0], ids[1], ids[2], ids[31],
         ids[32]);
  return 0;
}
