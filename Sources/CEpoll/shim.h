// Linux calls that Swift's Glibc module map leaves out: epoll and eventfd, whose headers it does
// not include, and two GNU extensions it hides because it is built without _GNU_SOURCE (the
// prototypes below are glibc's own).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
extern pid_t gettid(void);
