/*
 * uploads: an upload storm against one HTTP/1.1 server, with other clients measured meanwhile.
 *
 * N connections are opened first (a barrier: nothing is sent until all are connected); then each
 * sends one complete `POST PATH` with a `multipart/form-data` body of exactly BODY bytes
 * (Content-Length; a valid form: a `csrf_token` field and one file part `photo`, whose bytes are
 * filled to make up the size), all at once from one thread with non-blocking sockets and
 * edge-triggered epoll. By default the uploads are paced as N clients with equal links would
 * send: each may have written CHUNK bytes more every CHUNK/RATE seconds (RATE KiB/s per
 * connection, one schedule for all), so no body is complete before every body is nearly complete
 * and a server that reads what arrives holds all N at once; a connection the server does not read
 * holds no other back. With -R 0 each goes as fast as its socket takes; on loopback the kernel's
 * socket buffers (tcp_rmem up to 32 MiB here) then absorb whole bodies, and a server reading one
 * connection dry at a time may hold only a few bodies at once. -w sets the uploads' SO_SNDBUF. Each upload's status line is read (and whether it came
 * before the whole request had been written, i.e. the server answered early); completion times
 * count from the barrier.
 *
 * Meanwhile a second thread plays the other clients: G connections send `GET /` on a fixed
 * schedule (GET_RATE a second in all, open loop: latency counts from when a request was due, so a
 * stalled server cannot hide), each on a new connection unless -k (keep-alive). It starts
 * PRE seconds before the storm and runs AFTER seconds past it; GETs due while the storm runs
 * (barrier to last upload answered) are reported apart from the ones due in the second half of
 * PRE (the first half warms the server up and is not reported). A GET fails when it
 * cannot connect or send, the connection ends before a whole response, or the answer is not
 * 2xx/3xx; one still unanswered 10 s after the storm fails too.
 *
 * With -P PID a third thread samples the server's /proc/PID/status every 10 ms: VmRSS (peak of the
 * samples, at the barrier, and AFTER seconds past the storm) and VmHWM (the kernel's peak RSS
 * since the process started) before the storm and at the end.
 *
 * Prints one JSON object on stdout (times in ms from the barrier, sizes in KiB).
 *
 * build: gcc -O2 -Wall -Wextra -pthread -o uploads uploads.c
 * usage: uploads -p PORT [-h 127.0.0.1] [-n 200] [-s 3145728] [-u /profile/photo] [-P PID]
 *                [-R 1024] [-c 65536] [-w 0] [-g 4] [-r 200] [-k] [-b 2] [-a 1] [-t 120]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define HEAD_MAX 16384
#define BOUNDARY "----QuotebookUploadStorm7MA4YWxkTrZu0gW"

static struct addrinfo *address;
static char authority[300];

/* A connected socket (blocking connect with a 10 s timeout), TCP_NODELAY; -1 on failure. */
static int connect_socket(void) {
    int fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    struct timeval ten = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &ten, sizeof ten);
    if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* A response's head in `buffer`: 1 with the status (and Content-Length, -1 if none) once the
 * head is complete, 0 if more is needed, -1 if it is not HTTP. */
static int parse_head(const char *buffer, size_t used, int *status, long *length, size_t *head) {
    if (used >= 7 && memcmp(buffer, "HTTP/1.", 7) != 0) return -1;
    const char *end = memmem(buffer, used, "\r\n\r\n", 4);
    if (!end) return used >= HEAD_MAX ? -1 : 0;
    if (used < 12) return -1;
    *status = atoi(buffer + 9);
    *head = (size_t)(end - buffer) + 4;
    *length = -1;
    for (const char *line = memchr(buffer, '\n', *head); line && line + 1 < end; line = memchr(line + 1, '\n', (size_t)(end - line))) {
        if (strncasecmp(line + 1, "Content-Length:", 15) == 0) *length = strtol(line + 16, NULL, 10);
    }
    return 1;
}

/* ---- the RSS sampler ---- */

static pid_t server_pid;
static atomic_int sampler_stop;
static atomic_long rss_now_kib, rss_peak_kib, rss_samples;
static atomic_llong rss_peak_at_ns;

/* VmRSS and VmHWM of the server in KiB; 0 when it cannot be read. */
static void read_status(long *rss, long *hwm) {
    char path[64], text[4096];
    *rss = *hwm = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)server_pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return;
    text[n] = 0;
    char *p = strstr(text, "VmHWM:");
    if (p) *hwm = strtol(p + 6, NULL, 10);
    p = strstr(text, "VmRSS:");
    if (p) *rss = strtol(p + 6, NULL, 10);
}

static void *sampler(void *unused) {
    (void)unused;
    int64_t next = now_ns();
    while (!atomic_load(&sampler_stop)) {
        long rss, hwm;
        read_status(&rss, &hwm);
        atomic_store(&rss_now_kib, rss);
        if (rss > atomic_load(&rss_peak_kib)) {
            atomic_store(&rss_peak_kib, rss);
            atomic_store(&rss_peak_at_ns, now_ns());
        }
        atomic_fetch_add(&rss_samples, 1);
        next += 10000000LL;
        sleep_until(next);
    }
    return NULL;
}

/* ---- the other clients: GET / on a schedule ---- */

struct getter {
    int fd;
    int busy;
    int64_t due_ns;
    size_t received;          /* bytes of the response so far; the first HEAD_MAX kept */
    char buffer[HEAD_MAX];
};

static int get_count = 4, keep_alive = 0;
static double get_rate = 200;
static atomic_int getters_stop;
static atomic_llong storm_from_ns, storm_until_ns; /* 0 until known */
static int64_t get_start_ns;
static int64_t *get_latencies; /* per request index, -1 failed, 0 not answered */
static long get_total;         /* requests scheduled */
static long get_failed_connect, get_failed_io, get_non2xx;
static char get_request[512];
static size_t get_request_length;

static void getter_close(int epoll_fd, struct getter *g) {
    if (g->fd >= 0) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, g->fd, NULL);
        close(g->fd);
    }
    g->fd = -1;
    g->busy = 0;
    g->received = 0;
}

static void *getters(void *unused) {
    (void)unused;
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) die("epoll_create1");
    struct getter *gs = calloc((size_t)get_count, sizeof *gs);
    long *index = calloc((size_t)get_count, sizeof *index); /* request each getter has in flight */
    for (int i = 0; i < get_count; i++) gs[i].fd = -1;
    const double interval = 1e9 / get_rate;
    long capacity = 1 << 20, next = 0;
    get_latencies = calloc((size_t)capacity, sizeof *get_latencies);
    struct epoll_event events[64];
    for (;;) {
        int64_t now = now_ns();
        int stopping = atomic_load(&getters_stop);
        /* Send what is due on free connections (none once told to stop). */
        for (int i = 0; i < get_count && !stopping; i++) {
            struct getter *g = &gs[i];
            if (g->busy) continue;
            int64_t due = get_start_ns + (int64_t)((double)next * interval);
            if (due > now || next >= capacity) break;
            if (g->fd < 0) {
                g->fd = connect_socket();
                if (g->fd < 0) {
                    get_failed_connect++;
                    get_latencies[next++] = -1;
                    continue;
                }
                struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = g};
                if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, g->fd, &event) != 0) die("epoll_ctl");
            }
            ssize_t n = send(g->fd, get_request, get_request_length, MSG_NOSIGNAL);
            if (n != (ssize_t)get_request_length) {
                get_failed_io++;
                get_latencies[next++] = -1;
                getter_close(epoll_fd, g);
                continue;
            }
            g->busy = 1;
            g->due_ns = due;
            index[i] = next++;
        }
        int in_flight = 0;
        for (int i = 0; i < get_count; i++) in_flight += gs[i].busy;
        if (stopping && (in_flight == 0 || now > atomic_load(&storm_until_ns) + 10000000000LL)) break;

        int64_t wait = stopping ? 100000000LL : get_start_ns + (int64_t)((double)next * interval) - now;
        if (wait < 0) wait = 0;
        if (wait > 100000000LL) wait = 100000000LL;
        struct timespec timeout = {0, (long)wait};
        int ready = epoll_pwait2(epoll_fd, events, 64, &timeout, NULL);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("epoll_pwait2");
        }
        for (int e = 0; e < ready; e++) {
            struct getter *g = events[e].data.ptr;
            int i = (int)(g - gs), failed = 0;
            static char scratch[65536];
            for (;;) {
                int keep = g->received < HEAD_MAX;
                ssize_t n = recv(g->fd, keep ? g->buffer + g->received : scratch, keep ? HEAD_MAX - g->received : sizeof scratch, 0);
                if (n > 0) { g->received += (size_t)n; continue; }
                if (n == 0) failed = 1;
                else if (errno == EINTR) continue;
                else if (errno != EAGAIN && errno != EWOULDBLOCK) failed = 1;
                break;
            }
            int status = 0;
            long length = -1;
            size_t head = 0;
            size_t kept = g->received < HEAD_MAX ? g->received : HEAD_MAX;
            int parsed = g->busy ? parse_head(g->buffer, kept, &status, &length, &head) : -1;
            int complete = parsed > 0 && length >= 0 && g->received >= head + (size_t)length;
            if (parsed > 0 && length < 0 && failed) complete = 1; /* body up to the close */
            if (complete) {
                get_latencies[index[i]] = now_ns() - g->due_ns;
                if (get_latencies[index[i]] <= 0) get_latencies[index[i]] = 1;
                if (status < 200 || status >= 400) { get_non2xx++; get_latencies[index[i]] = -1; } /* a failure */
                g->busy = 0;
                g->received = 0;
                if (!keep_alive || failed || length < 0) getter_close(epoll_fd, g);
            } else if (failed || parsed < 0) {
                if (g->busy) {
                    get_failed_io++;
                    get_latencies[index[i]] = -1;
                }
                getter_close(epoll_fd, g);
            }
        }
    }
    for (int i = 0; i < get_count; i++) getter_close(epoll_fd, &gs[i]);
    get_total = next;
    return NULL;
}

/* ---- the uploads ---- */

struct upload {
    int fd;
    int state;          /* 0 sending, 1 reading, 2 answered, 3 failed */
    int early;          /* answered before the whole request was written */
    int blocked;        /* its socket was full: waits for EPOLLOUT */
    int status;
    size_t sent;        /* of head + body */
    size_t used;
    int64_t sent_ns;    /* the last request byte written */
    int64_t done_ns;
    char buffer[HEAD_MAX];
};

static char upload_head[1024];
static size_t upload_head_length;
static char *body;
static size_t body_length;

/* Pacing: by time T after the barrier every connection may have written `limit` = the head plus
 * CHUNK x (1 + T / STEP) bytes of its request, STEP being CHUNK / RATE (rate 0: no limit, each
 * goes as fast as its socket takes). One shared limit, so the uploads advance side by side as
 * clients with equal links would, and a connection the server does not read holds no other
 * back. */
static size_t chunk, limit;
static double rate; /* bytes a second per connection */
static int64_t step_ns;

/* Writes what the socket takes of the request up to the limit; 1 all written, 2 at the limit,
 * 0 the socket is full, -1 error. */
static int upload_send(struct upload *u) {
    size_t total = upload_head_length + body_length, until = limit < total ? limit : total;
    while (u->sent < until) {
        const char *from;
        size_t size;
        if (u->sent < upload_head_length) {
            from = upload_head + u->sent;
            size = upload_head_length - u->sent;
        } else {
            from = body + (u->sent - upload_head_length);
            size = until - u->sent;
        }
        ssize_t n = send(u->fd, from, size, MSG_NOSIGNAL);
        if (n > 0) { u->sent += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        return -1;
    }
    if (u->sent < total) return 2;
    u->sent_ns = now_ns();
    return 1;
}

/* Sends on `u` what it may; moves it to reading once all is written (or the server broke it off). */
static void pump(struct upload *u) {
    int r = upload_send(u);
    u->blocked = r == 0;
    if (r == 1) u->state = 1;
    if (r < 0) { u->state = 1; u->early = 1; } /* the server may have answered and closed: read it */
}

/* Raises the limit to what is due by now and sends on every connection not waiting for its
 * socket; returns the ms until the next step (-1: no more steps). */
static int advance(struct upload *uploads, int count, int64_t barrier) {
    size_t total = upload_head_length + body_length;
    if (limit >= total) return -1;
    int64_t elapsed = now_ns() - barrier;
    size_t due = upload_head_length + chunk * (size_t)(1 + elapsed / step_ns);
    if (due > limit) {
        limit = due;
        for (int i = 0; i < count; i++)
            if (uploads[i].state == 0 && !uploads[i].blocked) pump(&uploads[i]);
    }
    if (limit >= total) return -1;
    int64_t next = (1 + elapsed / step_ns) * step_ns - (now_ns() - barrier);
    return next <= 0 ? 0 : (int)((next + 999999) / 1000000);
}

/* Reads what has come; 1 with a complete status line and head, 0 if more is needed, -1 if the
 * connection ended or broke without one. */
static int upload_read(struct upload *u) {
    int closed = 0;
    for (;;) {
        if (u->used == sizeof u->buffer) break;
        ssize_t n = recv(u->fd, u->buffer + u->used, sizeof u->buffer - u->used, 0);
        if (n > 0) { u->used += (size_t)n; continue; }
        if (n == 0) closed = 1;
        else if (errno == EINTR) continue;
        else if (errno != EAGAIN && errno != EWOULDBLOCK) closed = 1;
        break;
    }
    long length;
    size_t head;
    int parsed = parse_head(u->buffer, u->used, &u->status, &length, &head);
    if (parsed > 0) return 1;
    if (parsed < 0 || closed) return -1;
    return 0;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *port = NULL, *path = "/profile/photo";
    int count = 200, sndbuf = 0;
    chunk = 64 * 1024;
    rate = 1024 * 1024;
    double pre = 2, after = 1, timeout_s = 120;
    body_length = 3 * 1024 * 1024;
    int option;
    while ((option = getopt(argc, argv, "h:p:n:s:u:P:g:r:kb:a:t:c:R:w:")) != -1) {
        switch (option) {
        case 'h': host = optarg; break;
        case 'p': port = optarg; break;
        case 'n': count = atoi(optarg); break;
        case 's': body_length = (size_t)strtoul(optarg, NULL, 10); break;
        case 'u': path = optarg; break;
        case 'P': server_pid = (pid_t)atoi(optarg); break;
        case 'g': get_count = atoi(optarg); break;
        case 'r': get_rate = atof(optarg); break;
        case 'k': keep_alive = 1; break;
        case 'b': pre = atof(optarg); break;
        case 'a': after = atof(optarg); break;
        case 't': timeout_s = atof(optarg); break;
        case 'c': chunk = (size_t)strtoul(optarg, NULL, 10); break;
        case 'R': rate = atof(optarg) * 1024; break;
        case 'w': sndbuf = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: uploads -p PORT [-h 127.0.0.1] [-n 200] [-s 3145728] [-u /profile/photo] [-P PID]\n"
                            "               [-R 1024] [-c 65536] [-w 0] [-g 4] [-r 200] [-k] [-b 2] [-a 1] [-t 120]\n");
            return 64;
        }
    }
    if (!port || count < 1 || get_count < 0 || (get_count > 0 && get_rate <= 0) || body_length < 512 || rate < 0 ||
        (rate > 0 && chunk < 1)) {
        fprintf(stderr, "uploads: -p PORT is required; -n >= 1, -s >= 512, -r > 0, -R >= 0, -c >= 1\n");
        return 64;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int gai = getaddrinfo(host, port, &hints, &address);
    if (gai != 0) {
        fprintf(stderr, "uploads: %s: %s\n", host, gai_strerror(gai));
        return 2;
    }
    snprintf(authority, sizeof authority, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    get_request_length = (size_t)snprintf(get_request, sizeof get_request, "GET / HTTP/1.1\r\nHost: %s\r\n%s\r\n", authority,
                                          keep_alive ? "" : "Connection: close\r\n");

    /* The body: the form's CSRF field (no session: any value), then one file part filled with
     * pseudo-random bytes behind a JPEG signature up to exactly body_length bytes. */
    char prefix[512], suffix[128];
    int prefix_length = snprintf(prefix, sizeof prefix,
                                 "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\nbench\r\n"
                                 "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"storm.jpg\"\r\n"
                                 "Content-Type: image/jpeg\r\n\r\n");
    int suffix_length = snprintf(suffix, sizeof suffix, "\r\n--" BOUNDARY "--\r\n");
    body = malloc(body_length);
    if (!body) die("malloc");
    memcpy(body, prefix, (size_t)prefix_length);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = (size_t)prefix_length; i < body_length - (size_t)suffix_length; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        body[i] = (char)(x >> 56);
        if (body[i] == '-' || body[i] == '\r') body[i] = 'x'; /* no delimiter can occur */
    }
    memcpy(body + prefix_length, "\xFF\xD8\xFF\xE0", 4);
    memcpy(body + body_length - (size_t)suffix_length, suffix, (size_t)suffix_length);
    upload_head_length = (size_t)snprintf(upload_head, sizeof upload_head,
                                          "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: multipart/form-data; boundary=" BOUNDARY
                                          "\r\nContent-Length: %zu\r\n\r\n",
                                          path, authority, body_length);

    pthread_t sampler_thread, getter_thread;
    if (server_pid > 0) pthread_create(&sampler_thread, NULL, sampler, NULL);
    get_start_ns = now_ns() + 1000000LL;
    if (get_count > 0) pthread_create(&getter_thread, NULL, getters, NULL);
    sleep_until(get_start_ns + (int64_t)(pre * 1e9));
    long rss_pre = 0, hwm_pre = 0;
    if (server_pid > 0) read_status(&rss_pre, &hwm_pre);

    /* Connect all, then the barrier. */
    struct upload *uploads = calloc((size_t)count, sizeof *uploads);
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) die("epoll_create1");
    int64_t connect_from = now_ns();
    long connect_failed = 0;
    for (int i = 0; i < count; i++) {
        struct upload *u = &uploads[i];
        u->fd = connect_socket();
        if (u->fd < 0) {
            connect_failed++;
            u->state = 3;
            continue;
        }
        if (sndbuf > 0) setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
        struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = u};
        if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, u->fd, &event) != 0) die("epoll_ctl");
    }
    int64_t barrier = now_ns();
    atomic_store(&storm_from_ns, barrier);
    long rss_barrier = 0, hwm_barrier = 0;
    if (server_pid > 0) read_status(&rss_barrier, &hwm_barrier);

    long io_failed = 0, early = 0, open = count - connect_failed;
    int64_t last_sent = 0, last_done = 0;
    /* Start every upload (what each socket takes, up to the first limit), then follow epoll. */
    if (rate > 0) {
        step_ns = (int64_t)((double)chunk / rate * 1e9);
        if (step_ns < 1) step_ns = 1;
        limit = upload_head_length + chunk;
    } else {
        limit = upload_head_length + body_length;
    }
    for (int i = 0; i < count; i++)
        if (uploads[i].state == 0) pump(&uploads[i]);
    int wait_ms = advance(uploads, count, barrier);
    int64_t deadline = barrier + (int64_t)(timeout_s * 1e9);
    struct epoll_event events[256];
    while (open > 0 && now_ns() < deadline) {
        int ready = epoll_wait(epoll_fd, events, 256, wait_ms < 0 || wait_ms > 100 ? 100 : wait_ms);
        if (ready < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int e = 0; e < ready; e++) {
            struct upload *u = events[e].data.ptr;
            if (u->state >= 2) continue;
            if (u->state == 0 && (events[e].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) pump(u); /* even if blocked */
            /* Edge-triggered: read whenever anything happened, the response may be waiting. */
            if (u->state == 1 || (events[e].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) {
                int r = upload_read(u);
                if (r != 0) {
                    if (r > 0) {
                        u->state = 2;
                        u->done_ns = now_ns();
                        if (u->sent < upload_head_length + body_length) u->early = 1;
                        if (u->early) early++;
                        if (u->done_ns > last_done) last_done = u->done_ns;
                    } else {
                        u->state = 3;
                        io_failed++;
                    }
                    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, u->fd, NULL);
                    close(u->fd);
                    u->fd = -1;
                    open--;
                }
            }
        }
        wait_ms = advance(uploads, count, barrier);
    }
    int64_t storm_end = now_ns();
    for (int i = 0; i < count; i++) {
        if (uploads[i].sent_ns > last_sent) last_sent = uploads[i].sent_ns;
        if (uploads[i].fd >= 0) close(uploads[i].fd);
    }
    atomic_store(&storm_until_ns, storm_end);
    long rss_end = 0, hwm_end = 0;
    if (server_pid > 0) read_status(&rss_end, &hwm_end);

    sleep_until(storm_end + (int64_t)(after * 1e9));
    atomic_store(&getters_stop, 1);
    if (get_count > 0) pthread_join(getter_thread, NULL);
    long rss_after = 0, hwm_after = 0;
    if (server_pid > 0) {
        read_status(&rss_after, &hwm_after);
        atomic_store(&sampler_stop, 1);
        pthread_join(sampler_thread, NULL);
    }

    /* Uploads by status class, and their completion times (answered ones). */
    long by_class[6] = {0}, s503 = 0, unfinished = 0;
    int64_t *done = calloc((size_t)count + 1, sizeof *done);
    size_t done_count = 0;
    char statuses[2048] = "";
    int seen[600] = {0};
    for (int i = 0; i < count; i++) {
        struct upload *u = &uploads[i];
        if (u->state == 2) {
            int s = u->status;
            if (s >= 100 && s < 600) { by_class[s / 100]++; seen[s]++; }
            if (s == 503) s503++;
            done[done_count++] = u->done_ns - barrier;
        } else if (u->state < 2) {
            unfinished++;
        }
    }
    for (int s = 100; s < 600; s++) {
        if (!seen[s]) continue;
        size_t l = strlen(statuses);
        snprintf(statuses + l, sizeof statuses - l, "%s\"%d\": %d", l ? ", " : "", s, seen[s]);
    }
    qsort(done, done_count, sizeof *done, compare_int64);

    /* GETs due before the barrier, and due during the storm (barrier to last answer). */
    int64_t storm_last = last_done ? last_done : storm_end;
    int64_t *before = calloc((size_t)get_total + 1, sizeof *before), *during = calloc((size_t)get_total + 1, sizeof *during);
    size_t before_count = 0, during_count = 0;
    long before_failed = 0, during_failed = 0, unanswered = 0;
    const double interval = get_count > 0 ? 1e9 / get_rate : 0;
    for (long i = 0; i < get_total; i++) {
        int64_t due = get_start_ns + (int64_t)((double)i * interval);
        int in_storm = due >= barrier && due <= storm_last;
        int pre_storm = due >= get_start_ns + (int64_t)(pre * 0.5e9) && due < connect_from; /* 1st half: warm-up */
        if (!in_storm && !pre_storm) continue;
        int64_t v = get_latencies[i];
        if (v == 0) { unanswered++; v = -1; }
        if (v < 0) { if (in_storm) during_failed++; else before_failed++; continue; }
        if (in_storm) during[during_count++] = v;
        else before[before_count++] = v;
    }
    qsort(before, before_count, sizeof *before, compare_int64);
    qsort(during, during_count, sizeof *during, compare_int64);

    printf("{\"uploads\": %d, \"body_bytes\": %zu, \"rate_kib_s\": %.0f, \"chunk\": %zu, \"sndbuf\": %d, \"path\": \"%s\", \"connect_ms\": %.1f, \"connect_failed\": %ld, "
           "\"answered\": %zu, \"status\": {%s}, \"s2xx\": %ld, \"s3xx\": %ld, \"s4xx\": %ld, \"s503\": %ld, \"s5xx_other\": %ld, "
           "\"io_failed\": %ld, \"unfinished\": %ld, \"answered_early\": %ld, "
           "\"all_sent_ms\": %.1f, \"all_done_ms\": %.1f, \"upload_p50_ms\": %.1f, \"upload_max_ms\": %.1f, "
           "\"get_connections\": %d, \"get_rate\": %.0f, \"get_keep_alive\": %d, "
           "\"get_before\": {\"answered\": %zu, \"failed\": %ld, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}, "
           "\"get_storm\": {\"answered\": %zu, \"failed\": %ld, \"p50_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}, "
           "\"get_errors\": {\"connect\": %ld, \"io\": %ld, \"non2xx\": %ld, \"unanswered\": %ld}, "
           "\"rss_pre_kib\": %ld, \"hwm_pre_kib\": %ld, \"rss_barrier_kib\": %ld, \"rss_peak_sampled_kib\": %ld, "
           "\"rss_peak_at_ms\": %.1f, \"rss_samples\": %ld, \"rss_end_kib\": %ld, \"hwm_end_kib\": %ld, "
           "\"rss_after_kib\": %ld, \"hwm_after_kib\": %ld}\n",
           count, body_length, rate / 1024, chunk, sndbuf, path, (double)(barrier - connect_from) / 1e6, connect_failed, done_count, statuses,
           by_class[2], by_class[3], by_class[4], s503, by_class[5] - s503, io_failed, unfinished, early,
           last_sent ? (double)(last_sent - barrier) / 1e6 : -1.0, last_done ? (double)(last_done - barrier) / 1e6 : -1.0,
           percentile_ms(done, done_count, 50), percentile_ms(done, done_count, 100), get_count, get_rate, keep_alive,
           before_count, before_failed, percentile_ms(before, before_count, 50), percentile_ms(before, before_count, 99),
           percentile_ms(before, before_count, 100), during_count, during_failed, percentile_ms(during, during_count, 50),
           percentile_ms(during, during_count, 99), percentile_ms(during, during_count, 100), get_failed_connect,
           get_failed_io, get_non2xx, unanswered, rss_pre, hwm_pre, rss_barrier, atomic_load(&rss_peak_kib),
           atomic_load(&rss_peak_at_ns) ? (double)(atomic_load(&rss_peak_at_ns) - barrier) / 1e6 : -1.0,
           atomic_load(&rss_samples), rss_end, hwm_end, rss_after, hwm_after);
    return 0;
}
