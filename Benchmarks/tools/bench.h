/*
 * What the C load tools (openloop.c, uploads.c) share: the monotonic clock, dying with errno's
 * message, and nearest-rank percentiles of nanosecond samples. Header-only; each tool includes
 * it once.
 */
#ifndef QUOTEBOOK_BENCH_H
#define QUOTEBOOK_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(2);
}

/* Sleeps until `deadline` on the monotonic clock (ns). */
static inline void sleep_until(int64_t deadline) {
    struct timespec t = {deadline / 1000000000LL, deadline % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
}

/* qsort's comparison for int64_t. */
static int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank over `count` sorted values (ns), in ms: the smallest sample with at least p% of
 * the samples at or below it; -1 with none. */
static double percentile_ms(const int64_t *sorted, size_t count, double p) {
    if (count == 0) return -1;
    size_t rank = (size_t)((p / 100.0) * (double)count + 0.999999999);
    if (rank < 1) rank = 1;
    if (rank > count) rank = count;
    return (double)sorted[rank - 1] / 1e6;
}

#endif
