/* SysV shared memory from several threads at once (see shmsysv_test.cpp): each thread attaches
 * and detaches segment 1 200 times, keeps one attachment of segment 2 and one of segment 3; the
 * main thread removes segment 2, then the threads detach it at once (the last detach destroys
 * it); segment 1 is removed unattached; segment 3 is removed while still attached (the kernel
 * ends it at exit). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#define THREADS 4
#define ROUNDS 200

static int segment1, segment2, segment3;
static void* kept[THREADS];
static pthread_barrier_t together;

static void* checked_attach(int id) {
  void* address = shmat(id, NULL, 0);
  if (address == (void*)-1) {
    perror("shmat");
    exit(2);
  }
  return address;
}

static void* attach_and_detach(void* argument) {
  const long index = (long)argument;
  pthread_barrier_wait(&together);
  for (int round = 0; round < ROUNDS; ++round) {
    shmdt(checked_attach(segment1));
  }
  kept[index] = checked_attach(segment2);
  checked_attach(segment3);
  return NULL;
}

static void* detach_kept(void* argument) {
  const long index = (long)argument;
  pthread_barrier_wait(&together);
  shmdt(kept[index]);
  return NULL;
}

static void run_threads(void* (*body)(void*)) {
  pthread_t threads[THREADS];
  for (long i = 0; i < THREADS; ++i) {
    pthread_create(&threads[i], NULL, body, (void*)i);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
  }
}

int main(void) {
  segment1 = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  segment2 = shmget(IPC_PRIVATE, 8192, IPC_CREAT | 0600);
  segment3 = shmget(IPC_PRIVATE, 12288, IPC_CREAT | 0600);
  if (segment1 < 0 || segment2 < 0 || segment3 < 0) {
    perror("shmget");
    return 2;
  }
  pthread_barrier_init(&together, NULL, THREADS);
  run_threads(attach_and_detach);
  shmctl(segment2, IPC_RMID, NULL);
  run_threads(detach_kept);
  shmctl(segment1, IPC_RMID, NULL);
  shmctl(segment3, IPC_RMID, NULL);
  puts("done");
  return 0;
}
