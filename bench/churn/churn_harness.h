/* What the allocation churns share besides their allocations: the command line
 * ([iterations per thread = 1000000] [threads = 1]), the threads that run the churn, and the line
 * of figures bench/run-tracer.sh reads: per operation (one malloc or one free) the wall time of the
 * churn itself (without start-up) and the CPU time the churning threads used (what a tracer adds
 * inline, whatever else runs on the machine). Each churn keeps its own thread function, so that
 * its stacks are its own: the harness adds no frame to them. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long iterations = 1000000;
static int threads = 1;
static _Atomic double thread_cpu_ns;

/* The calling thread's CPU time. */
static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Adds a churning thread's CPU time to the total the figures divide. */
static void add_thread_cpu(double used) {
  double seen = thread_cpu_ns;
  while (!atomic_compare_exchange_weak(&thread_cpu_ns, &seen, seen + used)) {
  }
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Reads the command line, runs `run` on each thread (its argument the thread's index, 1 to
 * threads) and prints the figures. */
static int churn_main(int argc, char** argv, void* (*run)(void*)) {
  if (argc > 1)
    iterations = atol(argv[1]);
  if (argc > 2)
    threads = atoi(argv[2]);
  if (threads < 1 || threads > 256)
    threads = 1;
  pthread_t ids[256];
  const double start = now_ns();
  for (int i = 0; i < threads; ++i)
    pthread_create(&ids[i], NULL, run, (void*)(size_t)(i + 1));
  for (int i = 0; i < threads; ++i)
    pthread_join(ids[i], NULL);
  const double elapsed = now_ns() - start;
  const double operations = 2.0 * (double)iterations * threads;
  printf("threads=%d operations=%.0f ns_per_op=%.1f cpu_ns_per_op=%.1f\n", threads, operations,
         elapsed / operations, thread_cpu_ns / operations);
  return 0;
}
