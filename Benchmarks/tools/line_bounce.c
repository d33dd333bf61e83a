/*
 * line_bounce: what an atomic increment and decrement (a retain and a release) cost on a cache
 * line the other core wrote last, against the same on a line of the thread's own, on this
 * machine (issue 32: objects both event loops retain move their line between the cores).
 *
 * Two threads, pinned to CPUs 0 and 1, each run ITERATIONS rounds of: for each of LINES lines,
 * some private work (a dependent chain with loads, of a jittered length, so the threads do not
 * fall into lock-step), then one atomic add and one atomic subtract on that line. In `shared`
 * mode both threads use the same lines; in `private` mode each its own. The difference of the
 * two, divided by LINES, is the price of one bounced retain/release pair.
 *
 * Also `pingpong`: the round trip of one line between the two cores (a store, then waiting for
 * the other's), the floor of any hand-over.
 *
 * build: gcc -O2 -Wall -Wextra -pthread -o line_bounce line_bounce.c
 * usage: line_bounce private|shared [LINES=20] [WORK=200] [ITERATIONS=100000]
 *        line_bounce pingpong [ROUNDS=1000000]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LINES 64
typedef struct { _Atomic long value; char pad[120]; } line_t;
static line_t shared_lines[MAX_LINES] __attribute__((aligned(128)));
static line_t private_lines[2][MAX_LINES] __attribute__((aligned(128)));
static int is_shared, lines = 20, work = 200;
static long iterations = 100000;
static volatile long sink;
static _Atomic long flag __attribute__((aligned(128)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *rounds(void *argument) {
    long id = (long)argument;
    static __thread long buffer[1024];
    pin((int)id);
    line_t *own = is_shared ? shared_lines : private_lines[id];
    long accumulator = id;
    for (long round = 0; round < iterations; round++) {
        for (int line = 0; line < lines; line++) {
            int length = work + (int)((accumulator >> 7) & 127);
            for (int step = 0; step < length; step++)
                accumulator += (accumulator * 31 + step + buffer[(step + accumulator) & 1023]) >> 3;
            atomic_fetch_add(&own[line].value, 1);
            atomic_fetch_sub(&own[line].value, 1);
        }
    }
    sink = accumulator;
    return NULL;
}

static void *pong(void *argument) {
    long count = (long)argument;
    pin(1);
    for (long i = 0; i < count; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 1) {}
        atomic_store_explicit(&flag, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: line_bounce private|shared|pingpong ...\n"); return 64; }
    pthread_t threads[2];
    if (strcmp(argv[1], "pingpong") == 0) {
        long count = argc > 2 ? atol(argv[2]) : 1000000;
        pthread_create(&threads[1], NULL, pong, (void *)count);
        pin(0);
        double start = now();
        for (long i = 0; i < count; i++) {
            atomic_store_explicit(&flag, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&flag, memory_order_acquire) != 2 * i + 2) {}
        }
        double seconds = now() - start;
        pthread_join(threads[1], NULL);
        printf("{\"mode\":\"pingpong\",\"round_trip_ns\":%.1f}\n", seconds * 1e9 / count);
        return 0;
    }
    is_shared = strcmp(argv[1], "shared") == 0;
    if (argc > 2) lines = atoi(argv[2]);
    if (argc > 3) work = atoi(argv[3]);
    if (argc > 4) iterations = atol(argv[4]);
    if (lines < 1 || lines > MAX_LINES) { fprintf(stderr, "LINES must be 1 to %d\n", MAX_LINES); return 64; }
    double start = now();
    for (long i = 0; i < 2; i++) pthread_create(&threads[i], NULL, rounds, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    printf("{\"mode\":\"%s\",\"lines\":%d,\"work\":%d,\"ns_per_round\":%.1f}\n", argv[1], lines, work,
           (now() - start) * 1e9 / iterations);
    return 0;
}
