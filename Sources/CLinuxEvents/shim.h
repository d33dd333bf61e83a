// The Linux event APIs the HTTP server uses that Swift's Glibc module does not include:
// <sys/epoll.h>, <sys/eventfd.h> and accept4. Only HTTPServer's Socket/Platform+Glibc.swift
// imports this module (privately).
#include <stdint.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

// glibc declares accept4 only under _GNU_SOURCE, and <sys/socket.h> comes from Swift's prebuilt
// Glibc module, so a macro here cannot change that; this is the same prototype (accept4(2)).
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/// epoll_ctl with the event built here: `struct epoll_event` is packed on x86-64, so C lays it out.
static inline int clinuxevents_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

/// The ready mask and token of `events[index]`, read in C for the same reason.
static inline uint32_t clinuxevents_event_mask(const struct epoll_event *events, int index) {
    return events[index].events;
}

static inline uint64_t clinuxevents_event_token(const struct epoll_event *events, int index) {
    return events[index].data.u64;
}
