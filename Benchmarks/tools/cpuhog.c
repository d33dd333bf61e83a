/*
 * cpuhog: CPU load from a process of its own, for telling apart why GET / latency moves while
 * the server hashes passwords (Benchmarks/signin.sh --open-loop, phases spin-* and crypt-*).
 *
 * THREADS threads, each in the scheduling class it is given (set by the thread on itself, as
 * the server's BlockingThreadPool does), run for SECONDS:
 *   spin   a register-only arithmetic loop: pure user-space CPU, no memory, no system calls;
 *          what the scheduler alone does with a busy thread of that class.
 *   crypt  crypt_r with a fresh yescrypt setting from crypt_gensalt("$y$", 0, ...), the
 *          server's own hash (libxcrypt maps, faults in and unmaps its working memory on every
 *          call), but in another process, so not in the server's address space.
 * The first WARMUP seconds are not counted. Prints one JSON line: mode, class, threads, the
 * counted seconds, operations per second (hashes for crypt) and CPU seconds used in them.
 *
 * build: gcc -O2 -Wall -Wextra -pthread -o cpuhog cpuhog.c -lcrypt
 * usage: cpuhog spin|crypt idle|nice10|normal THREADS SECONDS [WARMUP]
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int use_crypt;
static const char *class_name;
static double seconds;
static atomic_long operations;
static atomic_int counting;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Puts the calling thread in the class; exits on failure, since the phase would be mislabelled. */
static void apply_class(void) {
    if (strcmp(class_name, "idle") == 0) {
        struct sched_param parameters = {.sched_priority = 0};
        if (sched_setscheduler(0, SCHED_IDLE, &parameters) != 0) { perror("sched_setscheduler"); exit(2); }
    } else if (strcmp(class_name, "nice10") == 0) {
        if (setpriority(PRIO_PROCESS, 0, 10) != 0) { perror("setpriority"); exit(2); }
    } else if (strcmp(class_name, "normal") != 0) {
        fprintf(stderr, "cpuhog: unknown class %s\n", class_name);
        exit(64);
    }
}

static void *run(void *unused) {
    (void)unused;
    apply_class();
    double end = now() + seconds;
    if (use_crypt) {
        struct crypt_data *data = calloc(1, sizeof *data);
        char setting[CRYPT_GENSALT_OUTPUT_SIZE];
        while (now() < end) {
            if (!crypt_gensalt_rn("$y$", 0, NULL, 0, setting, sizeof setting)) { perror("crypt_gensalt_rn"); exit(2); }
            if (!crypt_r("a password of some length", setting, data)) { perror("crypt_r"); exit(2); }
            if (atomic_load(&counting)) atomic_fetch_add(&operations, 1);
        }
        free(data);
    } else {
        volatile uint64_t sink = 0;
        uint64_t x = 88172645463325252ULL;
        while (now() < end) {
            for (int i = 0; i < 100000; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
            sink += x;
            if (atomic_load(&counting)) atomic_fetch_add(&operations, 1);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if ((argc != 5 && argc != 6) || (strcmp(argv[1], "spin") != 0 && strcmp(argv[1], "crypt") != 0)) {
        fprintf(stderr, "usage: cpuhog spin|crypt idle|nice10|normal THREADS SECONDS [WARMUP]\n");
        return 64;
    }
    use_crypt = strcmp(argv[1], "crypt") == 0;
    class_name = argv[2];
    int threads = atoi(argv[3]);
    seconds = atof(argv[4]);
    double warmup = argc == 6 ? atof(argv[5]) : 0;
    if (threads < 1 || seconds <= 0 || warmup < 0 || warmup >= seconds) return 64;
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, run, NULL);
    usleep((useconds_t)(warmup * 1e6));
    struct rusage from, until;
    getrusage(RUSAGE_SELF, &from);
    double counted_from = now();
    atomic_store(&counting, 1);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    getrusage(RUSAGE_SELF, &until);
    double elapsed = now() - counted_from;
    double cpu = (double)(until.ru_utime.tv_sec - from.ru_utime.tv_sec + until.ru_stime.tv_sec - from.ru_stime.tv_sec) +
                 (double)(until.ru_utime.tv_usec - from.ru_utime.tv_usec + until.ru_stime.tv_usec - from.ru_stime.tv_usec) / 1e6;
    printf("{\"mode\": \"%s\", \"class\": \"%s\", \"threads\": %d, \"seconds\": %.2f, \"operations_per_s\": %.1f, "
           "\"cpu_s\": %.2f}\n",
           argv[1], class_name, threads, elapsed, (double)atomic_load(&operations) / elapsed, cpu);
    return 0;
}
