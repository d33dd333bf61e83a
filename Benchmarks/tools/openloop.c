/*
 * openloop: a fixed-rate (open-loop) HTTP/1.1 GET load generator, in the manner of wrk2.
 *
 * Requests are due on a fixed schedule, request i at start + i / RATE, whatever the server does.
 * A due request goes out on any idle keep-alive connection of the pool (one request in flight
 * per connection, no pipelining). Latency is measured from the request's *scheduled* time, not
 * from when it was written: a request that had to wait for a free connection, or for this
 * process to be scheduled, carries that wait in its latency. That avoids coordinated omission,
 * where a closed-loop client (wrk, ab) stops sending while the server stalls and so never
 * samples the stall. The latency from the actual write ("service time", what a closed-loop
 * client would report) is kept too, for contrast.
 *
 * One thread, epoll (epoll_pwait2 for sub-millisecond timeouts: Linux >= 5.11, glibc >= 2.35),
 * timer slack 1 ns. Responses must carry Content-Length (chunked answers count as errors).
 * Requests scheduled in [start + WARMUP, start + WARMUP + DURATION) are counted; after the
 * schedule ends the backlog is still sent and awaited for up to 10 s, and anything unanswered
 * then counts as an error, so a stalled server cannot hide. Percentiles are nearest-rank over
 * every counted sample (sorted arrays, no bucketing).
 *
 * Prints one JSON object on stdout:
 *   target_rate, connections, duration_s, scheduled (counted), completed, achieved_rate,
 *   errors {connect, io, closed, unsupported, unfinished}, non2xx (answers outside 200-399),
 *   p50_ms p90_ms p99_ms p999_ms max_ms mean_ms          (from the scheduled time)
 *   service_p50_ms service_p99_ms service_p999_ms service_max_ms   (from the write)
 *   late_sends (counted requests written > 1 ms after their time), max_send_lag_ms, cpu_s
 *
 * build: gcc -O2 -Wall -Wextra -o openloop openloop.c
 * usage: openloop -p PORT -r RATE [-h 127.0.0.1] [-u /] [-c 64] [-d 15] [-w 2]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define BUFFER_SIZE (256 * 1024)
#define DRAIN_NS (10LL * 1000000000LL)
#define LATE_NS 1000000LL

/* One keep-alive connection: its socket, the request in flight, and the bytes read so far. */
struct connection {
    int fd;
    int busy;              /* a request is in flight */
    int counted;           /* that request falls in the measured window */
    int64_t scheduled_ns;  /* when it was due */
    int64_t sent_ns;       /* when it was written */
    size_t used;           /* bytes of the response in buffer */
    char *buffer;
};

/* A growable array of latencies in nanoseconds. */
struct samples {
    int64_t *values;
    size_t count, capacity;
};

static struct addrinfo *address;
static char request[1024];
static size_t request_length;
static int epoll_fd;

static struct {
    long connect, io, closed, unsupported, unfinished;
} errors;
static long non2xx;

static void add(struct samples *s, int64_t value) {
    if (s->count == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 65536;
        s->values = realloc(s->values, s->capacity * sizeof *s->values);
        if (!s->values) die("realloc");
    }
    s->values[s->count++] = value;
}

/* Opens a blocking connect, then switches to non-blocking; -1 (counted) on failure. */
static int open_connection(struct connection *c) {
    int fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
        close(fd);
        errors.connect++;
        c->fd = -1;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) die("epoll_ctl");
    c->fd = fd;
    c->busy = 0;
    c->used = 0;
    return 0;
}

/* Closes and reopens a connection whose request failed or whose server said close. */
static void reopen(struct connection *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->busy = 0;
    c->used = 0;
    open_connection(c);
}

/* Writes the request; 0 on success. One small write on an idle socket never blocks. */
static int send_request(struct connection *c) {
    ssize_t n;
    do n = send(c->fd, request, request_length, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)request_length ? 0 : -1;
}

/* Parses what `c` has read: 1 with a whole response (status and whether to close set),
 * 0 if more is needed, -1 if it cannot be handled. */
static int parse_response(struct connection *c, int *status, int *must_close) {
    char *end = memmem(c->buffer, c->used, "\r\n\r\n", 4);
    if (!end) return c->used == BUFFER_SIZE ? -1 : 0;
    size_t head = (size_t)(end - c->buffer) + 4;
    if (c->used < 12 || memcmp(c->buffer, "HTTP/1.", 7) != 0) return -1;
    *status = atoi(c->buffer + 9);
    long length = -1;
    *must_close = c->buffer[7] == '0';
    for (char *line = memchr(c->buffer, '\n', head) + 1; line < end;
         line = memchr(line, '\n', (size_t)(end + 2 - line)) + 1) {
        if (strncasecmp(line, "Content-Length:", 15) == 0) length = strtol(line + 15, NULL, 10);
        else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0) return -1;
        else if (strncasecmp(line, "Connection:", 11) == 0) {
            const char *v = line + 11;
            while (*v == ' ') v++;
            if (strncasecmp(v, "close", 5) == 0) *must_close = 1;
        }
    }
    if (length < 0) return -1;
    if (c->used < head + (size_t)length) return 0;
    if (c->used > head + (size_t)length) return -1; /* bytes nobody asked for */
    return 1;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *path = "/";
    const char *port = NULL;
    double rate = 0, duration = 15, warmup = 2;
    int connection_count = 64;
    int option;
    while ((option = getopt(argc, argv, "h:p:u:c:r:d:w:")) != -1) {
        switch (option) {
        case 'h': host = optarg; break;
        case 'p': port = optarg; break;
        case 'u': path = optarg; break;
        case 'c': connection_count = atoi(optarg); break;
        case 'r': rate = atof(optarg); break;
        case 'd': duration = atof(optarg); break;
        case 'w': warmup = atof(optarg); break;
        default:
            fprintf(stderr, "usage: openloop -p PORT -r RATE [-h 127.0.0.1] [-u /] [-c 64] [-d 15] [-w 2]\n");
            return 64;
        }
    }
    if (!port || rate <= 0 || duration <= 0 || warmup < 0 || connection_count < 1) {
        fprintf(stderr, "openloop: -p PORT and -r RATE > 0 are required\n");
        return 64;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int gai = getaddrinfo(host, port, &hints, &address);
    if (gai != 0) {
        fprintf(stderr, "openloop: %s: %s\n", host, gai_strerror(gai));
        return 2;
    }
    const char *host_header = strchr(host, ':') ? "[%s]:%s" : "%s:%s";
    char authority[300];
    snprintf(authority, sizeof authority, host_header, host, port);
    request_length = (size_t)snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, authority);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) die("epoll_create1");
    struct connection *connections = calloc((size_t)connection_count, sizeof *connections);
    struct connection **idle = calloc((size_t)connection_count, sizeof *idle);
    int idle_count = 0;
    for (int i = 0; i < connection_count; i++) {
        connections[i].buffer = malloc(BUFFER_SIZE);
        if (open_connection(&connections[i]) != 0) {
            fprintf(stderr, "openloop: cannot connect to %s\n", authority);
            return 2;
        }
        idle[idle_count++] = &connections[i];
    }

    struct samples corrected = {0}, service = {0};
    const double interval_ns = 1e9 / rate;
    const int64_t start = now_ns() + 10000000LL;
    const int64_t count_from = start + (int64_t)(warmup * 1e9);
    const int64_t count_until = count_from + (int64_t)(duration * 1e9);
    const int64_t total = (int64_t)((double)(count_until - start) / interval_ns);
    int64_t next = 0; /* index of the next request to send */
    long scheduled_counted = 0, late_sends = 0;
    int64_t max_lag = 0;
    struct rusage usage_from = {0}, usage_until;
    int usage_started = 0;
    int in_flight = 0;
    struct epoll_event events[256];

    for (;;) {
        int64_t now = now_ns();
        if (!usage_started && now >= count_from) {
            getrusage(RUSAGE_SELF, &usage_from);
            usage_started = 1;
        }
        /* Send every request that is due, while a connection is free. */
        while (next < total && idle_count > 0) {
            int64_t due = start + (int64_t)((double)next * interval_ns);
            if (due > now) break;
            struct connection *c = idle[--idle_count];
            if (c->fd < 0 && open_connection(c) != 0) {
                idle[idle_count++] = c; /* try again later; the request waits */
                break;
            }
            c->scheduled_ns = due;
            c->counted = due >= count_from && due < count_until;
            if (c->counted) {
                scheduled_counted++;
                int64_t lag = now - due;
                if (lag > LATE_NS) late_sends++;
                if (lag > max_lag) max_lag = lag;
            }
            next++;
            c->sent_ns = now_ns();
            if (send_request(c) != 0) {
                if (c->counted) errors.io++;
                reopen(c);
                idle[idle_count++] = c;
                continue;
            }
            c->busy = 1;
            in_flight++;
        }
        if (next >= total && in_flight == 0) break;
        if (now > count_until + DRAIN_NS) break;

        /* Sleep until the next request is due (if a connection is free) or a response comes. */
        struct timespec timeout = {0, 100000000L}; /* at most 100 ms, to notice the drain deadline */
        if (next < total && idle_count > 0) {
            int64_t wait = start + (int64_t)((double)next * interval_ns) - now_ns();
            if (wait < 0) wait = 0;
            if (wait < 100000000LL) timeout.tv_nsec = (long)wait;
        }
        int ready = epoll_pwait2(epoll_fd, events, 256, &timeout, NULL);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("epoll_pwait2");
        }
        for (int e = 0; e < ready; e++) {
            struct connection *c = events[e].data.ptr;
            int failed = 0, done = 0, status = 0, must_close = 0;
            for (;;) {
                ssize_t n = recv(c->fd, c->buffer + c->used, BUFFER_SIZE - c->used, 0);
                if (n > 0) {
                    c->used += (size_t)n;
                    if (c->used == BUFFER_SIZE) break;
                    continue;
                }
                if (n == 0) failed = 1;
                else if (errno == EINTR) continue;
                else if (errno != EAGAIN && errno != EWOULDBLOCK) failed = 1;
                break;
            }
            int64_t arrived = now_ns();
            if (c->busy && c->used > 0) {
                int parsed = parse_response(c, &status, &must_close);
                if (parsed < 0) {
                    if (c->counted) errors.unsupported++;
                    failed = 1;
                } else if (parsed > 0) {
                    done = 1;
                }
            }
            if (done) {
                in_flight--;
                c->busy = 0;
                c->used = 0;
                if (c->counted) {
                    add(&corrected, arrived - c->scheduled_ns);
                    add(&service, arrived - c->sent_ns);
                    if (status < 200 || status >= 400) non2xx++;
                }
                if (must_close) reopen(c);
                idle[idle_count++] = c;
            } else if (failed || (!c->busy && c->used > 0)) {
                /* An idle connection is already in `idle`: reopen it in place. */
                int was_busy = c->busy;
                if (was_busy) {
                    in_flight--;
                    if (c->counted) errors.closed++;
                }
                reopen(c);
                if (was_busy) idle[idle_count++] = c;
            }
        }
    }
    errors.unfinished = scheduled_counted - (long)corrected.count - errors.io - errors.closed - errors.unsupported;
    getrusage(RUSAGE_SELF, &usage_until);
    double cpu = (double)(usage_until.ru_utime.tv_sec - usage_from.ru_utime.tv_sec + usage_until.ru_stime.tv_sec - usage_from.ru_stime.tv_sec) +
                 (double)(usage_until.ru_utime.tv_usec - usage_from.ru_utime.tv_usec + usage_until.ru_stime.tv_usec - usage_from.ru_stime.tv_usec) / 1e6;

    qsort(corrected.values, corrected.count, sizeof(int64_t), compare_int64);
    qsort(service.values, service.count, sizeof(int64_t), compare_int64);
    double sum = 0;
    for (size_t i = 0; i < corrected.count; i++) sum += (double)corrected.values[i];
    printf("{\"target_rate\": %.1f, \"connections\": %d, \"duration_s\": %.1f, \"scheduled\": %ld, \"completed\": %zu, "
           "\"achieved_rate\": %.1f, \"errors\": {\"connect\": %ld, \"io\": %ld, \"closed\": %ld, "
           "\"unsupported\": %ld, \"unfinished\": %ld}, \"non2xx\": %ld, "
           "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"p999_ms\": %.3f, \"max_ms\": %.3f, \"mean_ms\": %.3f, "
           "\"service_p50_ms\": %.3f, \"service_p99_ms\": %.3f, \"service_p999_ms\": %.3f, \"service_max_ms\": %.3f, "
           "\"late_sends\": %ld, \"max_send_lag_ms\": %.3f, \"cpu_s\": %.2f}\n",
           rate, connection_count, duration, scheduled_counted, corrected.count, (double)corrected.count / duration,
           errors.connect, errors.io, errors.closed, errors.unsupported, errors.unfinished, non2xx,
           percentile_ms(corrected.values, corrected.count, 50), percentile_ms(corrected.values, corrected.count, 90), percentile_ms(corrected.values, corrected.count, 99),
           percentile_ms(corrected.values, corrected.count, 99.9), percentile_ms(corrected.values, corrected.count, 100),
           corrected.count ? sum / (double)corrected.count / 1e6 : -1.0,
           percentile_ms(service.values, service.count, 50), percentile_ms(service.values, service.count, 99), percentile_ms(service.values, service.count, 99.9),
           percentile_ms(service.values, service.count, 100), late_sends, (double)max_lag / 1e6, cpu);
    return 0;
}
