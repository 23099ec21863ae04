/*
 * nccl4j test fixture: a native NCCL net plugin of our own over TCP sockets, host memory only.
 *
 * Exports ncclNetPlugin_v10, _v8, _v4, _v3 and/or _v2 according to -DFX_V10, -DFX_V8, -DFX_V4,
 * -DFX_V3, -DFX_V2 (v3 and v2 only to test that they are reported as not used). One wire
 * protocol for all versions: a connection starts with a 16-byte hello from the connecting side,
 * then each message is an 8-byte header {uint32 size, int32 tag} followed by the payload.
 *
 * -DFX_CUDA also takes CUDA device memory (ptrSupport NCCL_PTR_HOST | NCCL_PTR_CUDA, regMr of type
 * NCCL_PTR_CUDA), as a GPU Direct RDMA capable plugin does; it has no NIC to DMA with, so it stages
 * each message through host memory with the CUDA driver (libcuda.so.1, loaded at first use): a
 * send copies the device buffer out when posted, a receive copies the message in before it reports
 * done, so iflush has nothing to do. It is the test instrument for nccl4j's GPU Direct RDMA path.
 *
 * -DFX_ACK_CONNECT (v5+ only) makes connect behave as libfabric-based plugins do: accept answers
 * the hello with an 8-byte ack, and connect returns its comm only once that ack arrived, so a
 * connect completes only after the peer has called accept.
 *
 * Semantics (see the v4 and v8+ rules of NCCL's net API):
 *  - v4 connect/accept block until they have an endpoint; v8/v10 connect/accept never block:
 *    they return success with a NULL comm until the connection is set up. connect's first call
 *    only starts the TCP connection (always a NULL answer); it keeps its in-progress state in a
 *    heap object whose address it writes into the handle buffer, so the caller must call it
 *    again with the same handle memory. accept keeps up to 16 connections whose hello is
 *    incomplete, so a stray connection blocks no other.
 *  - isend/irecv post requests (at most NCCL_NET_MAX_REQUESTS per comm, else success with a
 *    NULL request); all progress happens in isend/irecv/test, in posting order per comm, with
 *    non-blocking socket calls: test never blocks.
 *  - Every handle the caller passes back (comm, request, memory handle, connection state) is
 *    checked against a registry of live objects, so stale or garbage handles are refused with a
 *    WARN instead of crashing. Freed objects sit in a quarantine before their memory is reused.
 *  - All errors are logged through the logger given to init, with NCCL's levels and NCCL_NET.
 */
#define _GNU_SOURCE
#include "fixture_abi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#ifdef FX_CUDA
#include <dlfcn.h>
#endif

#define FX_API static __attribute__((unused))

#define FX_HANDLE_MAGIC 0x6e63636c346a4658ULL /* "XFj4lccn" */
#define FX_HELLO_MAGIC 0x6f6c6c6548584658ULL  /* "XFXHello" */
#define FX_ACK_MAGIC 0x6b63416465747041ULL    /* "AptedAck" */
#if defined(FX_ACK_CONNECT) && (defined(FX_V4) || defined(FX_V3) || defined(FX_V2))
#error "FX_ACK_CONNECT needs non-blocking connect and accept (v5+): a blocking v4 connect would wait forever"
#endif
#define FX_MAX_DEVS 16
#define FX_MAX_REQUESTS NCCL_NET_MAX_REQUESTS
#define FX_QUARANTINE 1024

static ncclDebugLogger_t fxLogger;

#define FX_LOG(level, fmt, ...)                                                                   \
  do {                                                                                            \
    if (fxLogger) fxLogger(level, NCCL_NET, __FILE__, __LINE__, "NET/Fixture : " fmt, ##__VA_ARGS__); \
  } while (0)
#define WARN(fmt, ...) FX_LOG(NCCL_LOG_WARN, fmt, ##__VA_ARGS__)
#define INFO(fmt, ...) FX_LOG(NCCL_LOG_INFO, fmt, ##__VA_ARGS__)

union fxAddr {
  struct sockaddr sa;
  struct sockaddr_in in;
  struct sockaddr_in6 in6;
};

/* What listen writes into the caller's handle buffer (64 bytes for v4, 128 for v5+). */
struct fxHandle {
  uint64_t magic;
  union fxAddr addr;
  uint64_t state; /* connecting side only: address of its struct fxConnect, 0 when none */
};
_Static_assert(sizeof(struct fxHandle) <= NCCL_NET_HANDLE_MAXSIZE_V4, "handle fits v4");

struct fxDev {
  char name[IF_NAMESIZE];
  union fxAddr addr;
  char *pciPath;
  int speed;
};

static pthread_mutex_t fxLock = PTHREAD_MUTEX_INITIALIZER;
static int fxInitialized;
static struct fxDev fxDevs[FX_MAX_DEVS];
static int fxNDevs;

/* ------------------------------------------------------------------------------------------ */
/* Registry of live objects */

enum fxKind { FX_FREED = 0, FX_LISTEN, FX_SEND, FX_RECV, FX_REQ, FX_CONNECT, FX_MR };

struct fxObj {
  struct fxObj *next, *prev;
  int kind;
};

static struct fxObj fxLive = {&fxLive, &fxLive, FX_FREED};
static struct fxObj *fxQuarantine[FX_QUARANTINE];
static int fxQuarantinePos;

static void *fxNew(size_t size, int kind) {
  struct fxObj *o = calloc(1, size);
  if (o == NULL) return NULL;
  o->kind = kind;
  o->next = fxLive.next;
  o->prev = &fxLive;
  fxLive.next->prev = o;
  fxLive.next = o;
  return o;
}

/* The live object at p if it has that kind (kind 0: FX_SEND or FX_RECV), else NULL. */
static void *fxFind(const void *p, int kind) {
  if (p == NULL) return NULL;
  for (struct fxObj *o = fxLive.next; o != &fxLive; o = o->next) {
    if (o == p) {
      if (kind == 0) return (o->kind == FX_SEND || o->kind == FX_RECV) ? o : NULL;
      return o->kind == kind ? o : NULL;
    }
  }
  return NULL;
}

/* Removes an object from the registry: lookups no longer find it. */
static void fxUnlink(struct fxObj *o) {
  o->prev->next = o->next;
  o->next->prev = o->prev;
  o->next = o->prev = o;
  o->kind = FX_FREED;
}

/* Frees an unlinked object's memory, late: a thread that still holds its address stays safe. */
static void fxRelease(struct fxObj *o) {
  free(fxQuarantine[fxQuarantinePos]);
  fxQuarantine[fxQuarantinePos] = o;
  fxQuarantinePos = (fxQuarantinePos + 1) % FX_QUARANTINE;
}

static void fxFree(void *p) {
  fxUnlink(p);
  fxRelease(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Objects */

struct fxReq;

/*
 * Locking: fxLock guards the registry, connection set-up, registrations and each comm's ref and
 * closed fields; a comm's mu guards its queue, its requests and its socket I/O, so that the two
 * ends of a connection (and different connections) progress in parallel. Order: fxLock, then mu.
 * An operation pins its comm (ref) under fxLock, drops fxLock, works under mu, then unpins; a
 * close unlinks the comm at once and the last unpin closes the socket and frees it.
 */
struct fxComm {
  struct fxObj o;
  int fd;
  int dev;
  int ref;
  int closed;
  pthread_mutex_t mu;
  ncclResult_t err; /* sticky: once the connection failed, every pending request fails */
  struct fxReq *q[FX_MAX_REQUESTS];
  int nq;
};

struct fxReq {
  struct fxObj o;
  struct fxComm *comm;
  int send;
  char *data;
  size_t size; /* send: message size; receive: capacity */
  int tag;
  uint32_t hdr[2]; /* {size, tag} */
  size_t off;      /* bytes of header + payload done */
  size_t msg;      /* receive: the message's size, from its header */
  int done;
  char *user;      /* FX_CUDA: the device buffer a staged request moves, or NULL */
};

struct fxMr {
  struct fxObj o;
  struct fxComm *comm;
  char *data;
  size_t size;
  int type;
};

#define FX_MAX_PENDING 16

struct fxPending { /* an accepted connection whose hello is not complete yet */
  int fd;
  size_t got;
  uint64_t hello[2];
};

struct fxListen {
  struct fxObj o;
  int fd;
  int dev;
  struct fxPending pend[FX_MAX_PENDING];
  int npend;
};

struct fxConnect {
  struct fxObj o;
  int fd;
  int dev;
  int stage; /* 0 connecting, 1 sending hello (then, with FX_ACK_CONNECT, reading the ack) */
  size_t hsent;
  size_t ackGot;
  uint64_t ack;
};

static const uint64_t fxHello[2] = {FX_HELLO_MAGIC, 0};

static const char *fxAddrStr(const union fxAddr *a, char *buf, size_t len) {
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (a->sa.sa_family == AF_INET) {
    inet_ntop(AF_INET, &a->in.sin_addr, ip, sizeof ip);
    port = ntohs(a->in.sin_port);
  } else if (a->sa.sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof ip);
    port = ntohs(a->in6.sin6_port);
  }
  snprintf(buf, len, "%s<%d>", ip, port);
  return buf;
}

static socklen_t fxAddrLen(const union fxAddr *a) {
  return a->sa.sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

/* ------------------------------------------------------------------------------------------ */
/* Devices */

/* NCCL_SOCKET_IFNAME: comma-separated prefixes; a leading '^' excludes, a leading '=' means exact. */
static int fxIfMatch(const char *name, const char *filter) {
  int exclude = 0, exact = 0, hit = 0;
  if (*filter == '^') exclude = 1, filter++;
  if (*filter == '=') exact = 1, filter++;
  char buf[512];
  snprintf(buf, sizeof buf, "%s", filter);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
    if (exact ? strcmp(name, tok) == 0 : strncmp(name, tok, strlen(tok)) == 0) {
      hit = 1;
      break;
    }
  }
  return exclude ? !hit : hit;
}

/* mode 0: non-loopback only; 1: loopback only; 2: any (filtered). */
static void fxScan(struct ifaddrs *list, const char *filter, int mode) {
  for (struct ifaddrs *i = list; i != NULL && fxNDevs < FX_MAX_DEVS; i = i->ifa_next) {
    if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP)) continue;
    int loop = (i->ifa_flags & IFF_LOOPBACK) != 0;
    if ((mode == 0 && loop) || (mode == 1 && !loop)) continue;
    if (filter != NULL && !fxIfMatch(i->ifa_name, filter)) continue;
    int dup = 0;
    for (int d = 0; d < fxNDevs; d++) dup |= strcmp(fxDevs[d].name, i->ifa_name) == 0;
    if (dup) continue;
    struct fxDev *dev = &fxDevs[fxNDevs++];
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "%s", i->ifa_name);
    memcpy(&dev->addr.in, i->ifa_addr, sizeof(struct sockaddr_in));
    dev->addr.in.sin_port = 0;
    char path[128];
    snprintf(path, sizeof path, "/sys/class/net/%s/device", dev->name);
    dev->pciPath = realpath(path, NULL);
    dev->speed = 0;
    snprintf(path, sizeof path, "/sys/class/net/%s/speed", dev->name);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
      if (fscanf(f, "%d", &dev->speed) != 1) dev->speed = 0;
      fclose(f);
    }
    if (dev->speed <= 0) dev->speed = 10000;
  }
}

static ncclResult_t fxInit(ncclDebugLogger_t logger) {
  if (logger == NULL) return ncclInvalidArgument; /* nothing to report it through */
  pthread_mutex_lock(&fxLock);
  if (fxInitialized) {
    pthread_mutex_unlock(&fxLock);
    return ncclSuccess;
  }
  fxLogger = logger;
  struct ifaddrs *list = NULL;
  if (getifaddrs(&list) != 0) {
    WARN("getifaddrs failed: %s", strerror(errno));
    pthread_mutex_unlock(&fxLock);
    return ncclSystemError;
  }
  const char *filter = getenv("NCCL_SOCKET_IFNAME");
  if (filter != NULL && *filter == '\0') filter = NULL;
  fxNDevs = 0;
  if (filter != NULL) {
    fxScan(list, filter, 2);
  } else {
    fxScan(list, NULL, 0);
    if (fxNDevs == 0) fxScan(list, NULL, 1);
  }
  freeifaddrs(list);
  if (fxNDevs == 0) {
    WARN("no usable IPv4 interface (NCCL_SOCKET_IFNAME=%s)", filter ? filter : "");
    pthread_mutex_unlock(&fxLock);
    return ncclInternalError;
  }
  char line[1024];
  size_t n = 0;
  line[0] = '\0';
  for (int d = 0; d < fxNDevs && n < sizeof line; d++) {
    char a[80];
    n += snprintf(line + n, sizeof line - n, " [%d]%s:%s", d, fxDevs[d].name, fxAddrStr(&fxDevs[d].addr, a, sizeof a));
  }
  INFO("Using%s", line);
  fxInitialized = 1;
  pthread_mutex_unlock(&fxLock);
  return ncclSuccess;
}

/* Checks init and the device index; call with fxLock held. */
static ncclResult_t fxCheckDev(int dev, const char *what) {
  if (!fxInitialized) {
    WARN("%s called before init", what);
    return ncclInvalidUsage;
  }
  if (dev < 0 || dev >= fxNDevs) {
    WARN("%s: invalid device %d (%d devices)", what, dev, fxNDevs);
    return ncclInvalidArgument;
  }
  return ncclSuccess;
}

static ncclResult_t fxDevices(int *ndev) {
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  if (!fxInitialized) {
    WARN("devices called before init");
    rc = ncclInvalidUsage;
  } else if (ndev == NULL) {
    WARN("devices: NULL ndev");
    rc = ncclInvalidArgument;
  } else {
    *ndev = fxNDevs;
  }
  pthread_mutex_unlock(&fxLock);
  return rc;
}

/* Fills the fields common to every version's properties. */
static ncclResult_t fxProps(int dev, char **name, char **pciPath, uint64_t *guid, int *ptrSupport, int *speed,
                            int *port, int *maxComms) {
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = fxCheckDev(dev, "getProperties");
  if (rc == ncclSuccess) {
    *name = fxDevs[dev].name;
    *pciPath = fxDevs[dev].pciPath;
    *guid = (uint64_t)dev;
#ifdef FX_CUDA
    *ptrSupport = NCCL_PTR_HOST | NCCL_PTR_CUDA;
#else
    *ptrSupport = NCCL_PTR_HOST;
#endif
    *speed = fxDevs[dev].speed;
    *port = 0;
    *maxComms = 65536;
  }
  pthread_mutex_unlock(&fxLock);
  return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Connection set-up */

static ncclResult_t fxListen(int dev, void *handle, void **listenComm, size_t handleSize) {
  if (listenComm != NULL) *listenComm = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = fxCheckDev(dev, "listen");
  if (rc != ncclSuccess) goto out;
  if (handle == NULL || listenComm == NULL) {
    WARN("listen: NULL handle or listenComm");
    rc = ncclInvalidArgument;
    goto out;
  }
  union fxAddr addr = fxDevs[dev].addr;
  char a[80];
  int fd = socket(addr.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    WARN("listen: socket failed: %s", strerror(errno));
    rc = ncclSystemError;
    goto out;
  }
  socklen_t len = fxAddrLen(&addr);
  if (bind(fd, &addr.sa, len) != 0 || listen(fd, 16384) != 0 || getsockname(fd, &addr.sa, &len) != 0) {
    WARN("listen on %s (%s) failed: %s", fxDevs[dev].name, fxAddrStr(&addr, a, sizeof a), strerror(errno));
    close(fd);
    rc = ncclSystemError;
    goto out;
  }
  struct fxListen *lc = fxNew(sizeof *lc, FX_LISTEN);
  if (lc == NULL) {
    WARN("listen: out of memory");
    close(fd);
    rc = ncclSystemError;
    goto out;
  }
  lc->fd = fd;
  lc->dev = dev;
  struct fxHandle h;
  memset(&h, 0, sizeof h);
  h.magic = FX_HANDLE_MAGIC;
  h.addr = addr;
  memset(handle, 0, handleSize);
  memcpy(handle, &h, sizeof h);
  *listenComm = lc;
out:
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static struct fxComm *fxNewComm(int kind, int fd, int dev) {
  struct fxComm *c = fxNew(sizeof *c, kind);
  if (c == NULL) return NULL;
  c->fd = fd;
  c->dev = dev;
  pthread_mutex_init(&c->mu, NULL);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return c;
}

/* One non-blocking step of connect; *sendComm stays NULL until the connection is set up. */
static ncclResult_t fxConnectStep(int dev, void *handle, void **sendComm) {
  if (sendComm != NULL) *sendComm = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = fxCheckDev(dev, "connect");
  char a[80];
  if (rc != ncclSuccess) goto out;
  if (handle == NULL || sendComm == NULL) {
    WARN("connect: NULL handle or sendComm");
    rc = ncclInvalidArgument;
    goto out;
  }
  struct fxHandle h;
  memcpy(&h, handle, sizeof h);
  if (h.magic != FX_HANDLE_MAGIC || (h.addr.sa.sa_family != AF_INET && h.addr.sa.sa_family != AF_INET6)) {
    WARN("connect: not a Fixture handle (magic 0x%llx)", (unsigned long long)h.magic);
    rc = ncclInvalidArgument;
    goto out;
  }
  struct fxConnect *cs;
  if (h.state != 0) {
    cs = fxFind((void *)(uintptr_t)h.state, FX_CONNECT);
    if (cs == NULL) {
      WARN("connect: the handle refers to connection state 0x%llx that does not exist (handle copied or reused?)",
           (unsigned long long)h.state);
      rc = ncclInternalError;
      goto out;
    }
  } else {
    int fd = socket(h.addr.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      WARN("connect: socket failed: %s", strerror(errno));
      rc = ncclSystemError;
      goto out;
    }
    if (connect(fd, &h.addr.sa, fxAddrLen(&h.addr)) != 0 && errno != EINPROGRESS) {
      WARN("connect to %s failed: %s", fxAddrStr(&h.addr, a, sizeof a), strerror(errno));
      close(fd);
      rc = ncclSystemError;
      goto out;
    }
    cs = fxNew(sizeof *cs, FX_CONNECT);
    if (cs == NULL) {
      WARN("connect: out of memory");
      close(fd);
      rc = ncclSystemError;
      goto out;
    }
    cs->fd = fd;
    cs->dev = dev;
    h.state = (uintptr_t)cs;
    memcpy(handle, &h, sizeof h);
    /* The first call only starts: every caller sees at least one NULL answer and must call
     * again with the same handle memory, as with NCCL's own socket net. */
    goto out;
  }
  if (cs->stage == 0) {
    struct pollfd p = {cs->fd, POLLOUT, 0};
    if (poll(&p, 1, 0) == 0) goto out; /* still connecting */
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(cs->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err != 0) {
      WARN("connect to %s failed: %s", fxAddrStr(&h.addr, a, sizeof a), strerror(err));
      rc = ncclSystemError;
      goto fail;
    }
    cs->stage = 1;
  }
  while (cs->hsent < sizeof fxHello) {
    ssize_t k = send(cs->fd, (const char *)fxHello + cs->hsent, sizeof fxHello - cs->hsent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) goto out;
      WARN("connect to %s: sending the hello failed: %s", fxAddrStr(&h.addr, a, sizeof a), strerror(errno));
      rc = ncclSystemError;
      goto fail;
    }
    cs->hsent += (size_t)k;
  }
#ifdef FX_ACK_CONNECT
  while (cs->ackGot < sizeof cs->ack) {
    ssize_t k = recv(cs->fd, (char *)&cs->ack + cs->ackGot, sizeof cs->ack - cs->ackGot, MSG_DONTWAIT);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) goto out; /* the peer has not accepted yet */
    if (k <= 0) {
      WARN("connect to %s: waiting for the accept failed: %s", fxAddrStr(&h.addr, a, sizeof a),
           k < 0 ? strerror(errno) : "connection closed");
      rc = ncclSystemError;
      goto fail;
    }
    cs->ackGot += (size_t)k;
  }
  if (cs->ack != FX_ACK_MAGIC) {
    WARN("connect to %s: the peer answered 0x%llx, not the Fixture ack", fxAddrStr(&h.addr, a, sizeof a),
         (unsigned long long)cs->ack);
    rc = ncclSystemError;
    goto fail;
  }
#endif
  struct fxComm *c = fxNewComm(FX_SEND, cs->fd, dev);
  if (c == NULL) {
    WARN("connect: out of memory");
    rc = ncclSystemError;
    goto fail;
  }
  fxFree(cs);
  h.state = 0;
  memcpy(handle, &h, sizeof h);
  *sendComm = c;
  goto out;
fail:
  close(cs->fd);
  fxFree(cs);
  h.state = 0;
  memcpy(handle, &h, sizeof h);
out:
  pthread_mutex_unlock(&fxLock);
  return rc;
}

/* One non-blocking step of accept; *recvComm stays NULL until a peer connected and said hello. */
static ncclResult_t fxAcceptStep(void *listenComm, void **recvComm) {
  if (recvComm != NULL) *recvComm = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxListen *lc = fxFind(listenComm, FX_LISTEN);
  if (lc == NULL || recvComm == NULL) {
    WARN("accept: unknown or closed listen comm %p", listenComm);
    rc = ncclInvalidArgument;
    goto out;
  }
  /* Take every connection that arrived (a connection that never says hello blocks no other). */
  while (lc->npend < FX_MAX_PENDING) {
    int fd = accept4(lc->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      WARN("accept failed: %s", strerror(errno));
      rc = ncclSystemError;
      goto out;
    }
    memset(&lc->pend[lc->npend], 0, sizeof lc->pend[0]);
    lc->pend[lc->npend++].fd = fd;
  }
  /* Read their hellos; the first complete one becomes the receive comm (oldest first). */
  for (int i = 0; i < lc->npend;) {
    struct fxPending *p = &lc->pend[i];
    ssize_t k = recv(p->fd, (char *)p->hello + p->got, sizeof p->hello - p->got, MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      i++;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    int drop = 0;
    if (k <= 0) {
      WARN("accept: dropping a connection closed during the handshake (%s)", k < 0 ? strerror(errno) : "EOF");
      drop = 1;
    } else {
      p->got += (size_t)k;
      if (p->got < sizeof p->hello) continue;
      if (p->hello[0] != FX_HELLO_MAGIC) {
        WARN("accept: dropping a connection that did not send the Fixture hello");
        drop = 1;
      }
    }
    int fd = p->fd;
    memmove(&lc->pend[i], &lc->pend[i + 1], (size_t)(lc->npend - i - 1) * sizeof lc->pend[0]);
    lc->npend--;
#ifdef FX_ACK_CONNECT
    /* 8 bytes into a fresh connection's empty send buffer: sent whole or not at all. */
    static const uint64_t ack = FX_ACK_MAGIC;
    if (!drop && send(fd, &ack, sizeof ack, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof ack) {
      WARN("accept: dropping a connection whose ack could not be sent (%s)", strerror(errno));
      drop = 1;
    }
#endif
    if (drop) {
      close(fd);
      continue;
    }
    struct fxComm *c = fxNewComm(FX_RECV, fd, lc->dev);
    if (c == NULL) {
      WARN("accept: out of memory");
      close(fd);
      rc = ncclSystemError;
      goto out;
    }
    *recvComm = c;
    break;
  }
out:
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static ncclResult_t fxCloseListen(void *listenComm) {
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxListen *lc = fxFind(listenComm, FX_LISTEN);
  if (lc == NULL) {
    WARN("closeListen: unknown or closed listen comm %p", listenComm);
    rc = ncclInvalidArgument;
  } else {
    close(lc->fd);
    for (int i = 0; i < lc->npend; i++) close(lc->pend[i].fd);
    fxFree(lc);
  }
  pthread_mutex_unlock(&fxLock);
  return rc;
}

#ifdef FX_CUDA
/* The CUDA driver calls the staging needs, loaded once (their CUDA 13 names). */
typedef int (*fxCuCopy)(void *dst, const void *src, size_t n);
static struct {
  int tried, ok;
  int (*getAttr)(void *out, int attr, unsigned long long ptr);
  int (*push)(void *ctx);
  int (*pop)(void **ctx);
  int (*dtoh)(void *dst, unsigned long long src, size_t n);
  int (*htod)(unsigned long long dst, const void *src, size_t n);
  int (*sync)(void *stream);
} fxCu;
/* The legacy default stream, where cuMemcpyHtoD copies (CUDA's CU_STREAM_LEGACY). */
#define FX_CU_STREAM_LEGACY ((void *)0x1)
#define FX_CU_POINTER_ATTRIBUTE_CONTEXT 1

/* Call with fxLock held. */
static int fxCudaLoad(void) {
  if (!fxCu.tried) {
    fxCu.tried = 1;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
      WARN("regMr: CUDA memory needs libcuda.so.1: %s", dlerror());
      return 0;
    }
    *(void **)&fxCu.getAttr = dlsym(h, "cuPointerGetAttribute");
    *(void **)&fxCu.push = dlsym(h, "cuCtxPushCurrent_v2");
    *(void **)&fxCu.pop = dlsym(h, "cuCtxPopCurrent_v2");
    *(void **)&fxCu.dtoh = dlsym(h, "cuMemcpyDtoH_v2");
    *(void **)&fxCu.htod = dlsym(h, "cuMemcpyHtoD_v2");
    *(void **)&fxCu.sync = dlsym(h, "cuStreamSynchronize");
    fxCu.ok = fxCu.getAttr && fxCu.push && fxCu.pop && fxCu.dtoh && fxCu.htod && fxCu.sync;
    if (!fxCu.ok) WARN("regMr: libcuda.so.1 lacks a driver call the fixture needs");
  }
  return fxCu.ok;
}

/* Copies between host and device memory in the device memory's own context; 0 on success. */
static int fxCudaCopy(int toDevice, char *dev, char *host, size_t n) {
  void *ctx = NULL;
  if (n == 0) return 0;
  if (fxCu.getAttr(&ctx, FX_CU_POINTER_ATTRIBUTE_CONTEXT, (unsigned long long)(uintptr_t)dev) != 0 ||
      fxCu.push(ctx) != 0) {
    WARN("%s: %p is not CUDA device memory the driver knows", toDevice ? "recv" : "send", dev);
    return 1;
  }
  int rc;
  if (toDevice) {
    /* From pageable memory cuMemcpyHtoD returns once the bytes are staged, maybe before they reach
     * the device; a receive must not report done before. Waiting for the legacy stream it copies
     * on does not wait for kernels on non-blocking streams (pinning the buffer would: registering
     * and unregistering host memory synchronise the device, and the kernels wait for this
     * receive). */
    rc = fxCu.htod((unsigned long long)(uintptr_t)dev, host, n);
    if (rc == 0) rc = fxCu.sync(FX_CU_STREAM_LEGACY);
  } else {
    rc = fxCu.dtoh(host, (unsigned long long)(uintptr_t)dev, n); /* returns once copied */
  }
  void *popped;
  fxCu.pop(&popped);
  if (rc != 0) WARN("%s: CUDA copy of %zu bytes failed (CUresult %d)", toDevice ? "recv" : "send", n, rc);
  return rc;
}
#endif

/* Frees a request and its staging buffer. Call with fxLock held. */
static void fxFreeReq(struct fxReq *r) {
  if (r->user != NULL) free(r->data);
  fxFree(r);
}

/* ------------------------------------------------------------------------------------------ */
/* Memory registration */

static ncclResult_t fxRegMr(void *comm, void *data, size_t size, int type, void **mhandle) {
  if (mhandle != NULL) *mhandle = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxComm *c = fxFind(comm, 0);
  if (c == NULL || mhandle == NULL) {
    WARN("regMr: unknown or closed comm %p", comm);
    rc = ncclInvalidArgument;
#ifdef FX_CUDA
  } else if (type != NCCL_PTR_HOST && !(type == NCCL_PTR_CUDA && fxCudaLoad())) {
    WARN("regMr: memory type 0x%x is not supported (host and CUDA memory only)", type);
    rc = ncclInternalError;
#else
  } else if (type != NCCL_PTR_HOST) {
    WARN("regMr: memory type 0x%x is not supported (host memory only)", type);
    rc = ncclInternalError;
#endif
  } else {
    struct fxMr *mr = fxNew(sizeof *mr, FX_MR);
    if (mr == NULL) {
      WARN("regMr: out of memory");
      rc = ncclSystemError;
    } else {
      mr->comm = c;
      mr->data = data;
      mr->size = size;
      mr->type = type;
      *mhandle = mr;
    }
  }
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static ncclResult_t fxDeregMr(void *comm, void *mhandle) {
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxComm *c = fxFind(comm, 0);
  struct fxMr *mr = fxFind(mhandle, FX_MR);
  if (c == NULL) {
    WARN("deregMr: unknown or closed comm %p", comm);
    rc = ncclInvalidArgument;
  } else if (mr == NULL || mr->comm != c) {
    WARN("deregMr: %p is not a memory handle of comm %p", mhandle, comm);
    rc = ncclInvalidArgument;
  } else {
    fxFree(mr);
  }
  pthread_mutex_unlock(&fxLock);
  return rc;
}

FX_API ncclResult_t fxRegMrDmaBuf(void *comm, void *data, size_t size, int type, uint64_t offset, int fd, void **mhandle) {
  if (mhandle != NULL) *mhandle = NULL;
  WARN("regMrDmaBuf: DMA-BUF registration is not supported (host memory only)");
  return ncclInternalError;
}

/* ------------------------------------------------------------------------------------------ */
/* Data path */

static void fxFail(struct fxComm *c, ncclResult_t err) {
  if (c->err == ncclSuccess) c->err = err;
}

/* Returns 1 when r completed. */
static int fxProgressSend(struct fxComm *c, struct fxReq *r) {
  size_t total = sizeof r->hdr + r->size;
  while (r->off < total) {
    struct iovec iov[2];
    int n = 0;
    if (r->off < sizeof r->hdr) {
      iov[n].iov_base = (char *)r->hdr + r->off;
      iov[n].iov_len = sizeof r->hdr - r->off;
      n++;
    }
    size_t doff = r->off < sizeof r->hdr ? 0 : r->off - sizeof r->hdr;
    if (r->size > doff) {
      iov[n].iov_base = r->data + doff;
      iov[n].iov_len = r->size - doff;
      n++;
    }
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = iov;
    m.msg_iovlen = n;
    ssize_t k = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
      if (errno == EPIPE || errno == ECONNRESET)
        WARN("send: connection closed by peer (%s)", strerror(errno));
      else
        WARN("send failed: %s", strerror(errno));
      fxFail(c, ncclSystemError);
      return 0;
    }
    r->off += (size_t)k;
  }
  r->done = 1;
  return 1;
}

static int fxProgressRecv(struct fxComm *c, struct fxReq *r) {
  for (;;) {
    size_t hsz = sizeof r->hdr;
    char *p;
    size_t want;
    if (r->off < hsz) {
      p = (char *)r->hdr + r->off;
      want = hsz - r->off;
    } else if (r->off < hsz + r->msg) {
      p = r->data + (r->off - hsz);
      want = hsz + r->msg - r->off;
    } else {
#ifdef FX_CUDA
      if (r->user != NULL && fxCudaCopy(1, r->user, r->data, r->msg) != 0) {
        fxFail(c, ncclSystemError);
        return 0;
      }
#endif
      r->done = 1;
      return 1;
    }
    ssize_t k = recv(c->fd, p, want, MSG_DONTWAIT);
    if (k == 0) {
      if (r->off < hsz)
        WARN("recv: connection closed by peer (no message pending)");
      else
        WARN("recv: connection closed by peer (%zu of the message's %zu bytes received)", r->off - hsz, r->msg);
      fxFail(c, ncclSystemError);
      return 0;
    }
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
      if (errno == ECONNRESET)
        WARN("recv: connection closed by peer (%s)", strerror(errno));
      else
        WARN("recv failed: %s", strerror(errno));
      fxFail(c, ncclSystemError);
      return 0;
    }
    int hadHeader = r->off >= hsz;
    r->off += (size_t)k;
    if (!hadHeader && r->off == hsz) {
      size_t size = r->hdr[0];
      int tag = (int)r->hdr[1];
      if (tag != r->tag) {
        WARN("recv: message tag %d does not match the posted receive's tag %d", tag, r->tag);
        fxFail(c, ncclInternalError);
        return 0;
      }
      if (size > r->size) {
        WARN("recv: message of %zu bytes is larger than the posted receive buffer of %zu bytes", size, r->size);
        fxFail(c, ncclInternalError);
        return 0;
      }
      r->msg = size;
    }
  }
}

/* Moves what the socket allows, oldest request first; never blocks. Call with c->mu held. */
static void fxProgress(struct fxComm *c) {
  for (int i = 0; i < c->nq && c->err == ncclSuccess; i++) {
    struct fxReq *r = c->q[i];
    if (r->done) continue;
    if (!(r->send ? fxProgressSend(c, r) : fxProgressRecv(c, r))) break;
  }
}

static void fxUnpin(struct fxComm *c) {
  if (--c->ref == 0 && c->closed) {
    close(c->fd);
    pthread_mutex_destroy(&c->mu);
    fxRelease(&c->o);
  }
}

static ncclResult_t fxPost(const char *what, void *comm, int send, void *data, size_t size, int tag, void *mhandle,
                           void **request) {
  if (request == NULL) {
    WARN("%s: NULL request pointer", what);
    return ncclInvalidArgument;
  }
  *request = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxComm *c = fxFind(comm, send ? FX_SEND : FX_RECV);
  struct fxMr *mr = fxFind(mhandle, FX_MR);
  struct fxReq *r = NULL;
  if (c == NULL) {
    WARN("%s: unknown or closed %s comm %p", what, send ? "send" : "receive", comm);
    rc = ncclInvalidArgument;
  } else if (size > INT_MAX) {
    WARN("%s: size %zu is above the largest message (%d bytes)", what, size, INT_MAX);
    rc = ncclInvalidArgument;
  } else if (mr == NULL || mr->comm != c) {
    WARN("%s: %p is not a memory handle registered on comm %p", what, mhandle, comm);
    rc = ncclInvalidArgument;
  } else if (size > 0 && ((char *)data < mr->data || (char *)data + size > mr->data + mr->size)) {
    WARN("%s: buffer %p (%zu bytes) is outside its registration %p (%zu bytes)", what, data, size, mr->data, mr->size);
    rc = ncclInvalidArgument;
  } else if ((r = fxNew(sizeof *r, FX_REQ)) == NULL) {
    WARN("%s: out of memory", what);
    rc = ncclSystemError;
  } else {
    c->ref++;
  }
#ifdef FX_CUDA
  char *staged = NULL;
  if (r != NULL && mr->type == NCCL_PTR_CUDA) {
    staged = malloc(size > 0 ? size : 1);
    if (staged == NULL || (send && fxCudaCopy(0, data, staged, size) != 0)) {
      if (staged == NULL) WARN("%s: out of memory for %zu staging bytes", what, size);
      free(staged);
      fxFree(r);
      fxUnpin(c);
      r = NULL;
      rc = ncclSystemError;
    }
  }
#endif
  pthread_mutex_unlock(&fxLock);
  if (r == NULL) return rc;

  int posted = 0;
  pthread_mutex_lock(&c->mu);
  if (c->closed) {
    WARN("%s: comm %p was closed", what, comm);
    rc = ncclInvalidArgument;
  } else if (c->err != ncclSuccess) {
    WARN("%s: the connection has failed before", what);
    rc = c->err;
  } else if (c->nq < FX_MAX_REQUESTS) {
    r->comm = c;
    r->send = send;
    r->data = data;
#ifdef FX_CUDA
    if (staged != NULL) {
      r->user = data;
      r->data = staged;
    }
#endif
    r->size = size;
    r->tag = tag;
    r->hdr[0] = (uint32_t)size;
    r->hdr[1] = (uint32_t)tag;
    c->q[c->nq++] = r;
    fxProgress(c);
    *request = r;
    posted = 1;
  } /* else: all request slots busy: success with a NULL request, the caller retries */
  pthread_mutex_unlock(&c->mu);

  pthread_mutex_lock(&fxLock);
  if (!posted) {
#ifdef FX_CUDA
    if (r->user == NULL) free(staged);
#endif
    fxFreeReq(r);
  }
  fxUnpin(c);
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static ncclResult_t fxIrecv(const char *what, void *comm, int n, void **data, size_t size, int *tags, void **mhandles,
                            void **request) {
  if (request != NULL) *request = NULL;
  if (n != 1) {
    WARN("%s: %d grouped receives requested, maxRecvs is 1", what, n);
    return ncclInternalError;
  }
  if (data == NULL || mhandles == NULL) {
    WARN("%s: NULL data or mhandles", what);
    return ncclInvalidArgument;
  }
  return fxPost(what, comm, 0, data[0], size, tags != NULL ? tags[0] : 0, mhandles[0], request);
}

static ncclResult_t fxTest(void *request, int *done, int *size) {
  if (done != NULL) *done = 0;
  pthread_mutex_lock(&fxLock);
  struct fxReq *r = fxFind(request, FX_REQ);
  struct fxComm *c = r != NULL ? r->comm : NULL;
  if (c != NULL) c->ref++;
  pthread_mutex_unlock(&fxLock);
  if (c == NULL) {
    WARN("test: unknown request %p (already completed, or its comm was closed)", request);
    return ncclInvalidArgument;
  }

  ncclResult_t rc = ncclSuccess;
  int finished = 0;
  pthread_mutex_lock(&c->mu);
  int i = 0;
  while (i < c->nq && c->q[i] != r) i++;
  if (i == c->nq) { /* closed, or completed by a concurrent test */
    WARN("test: unknown request %p (already completed, or its comm was closed)", request);
    rc = ncclInvalidArgument;
  } else {
    fxProgress(c);
    if (r->done || c->err != ncclSuccess) {
      if (r->done) {
        if (done != NULL) *done = 1;
        if (size != NULL) *size = (int)(r->send ? r->size : r->msg);
      } else {
        rc = c->err;
      }
      memmove(&c->q[i], &c->q[i + 1], (size_t)(c->nq - i - 1) * sizeof c->q[0]);
      c->nq--;
      finished = 1;
    }
  }
  pthread_mutex_unlock(&c->mu);

  pthread_mutex_lock(&fxLock);
  if (finished) fxFreeReq(r);
  fxUnpin(c);
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static ncclResult_t fxIflush(void *recvComm, void **request) {
  if (request != NULL) *request = NULL;
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  if (fxFind(recvComm, FX_RECV) == NULL) {
    WARN("iflush: unknown or closed receive comm %p", recvComm);
    rc = ncclInvalidArgument;
  }
  pthread_mutex_unlock(&fxLock);
  return rc; /* host memory: nothing to flush, no request */
}

static ncclResult_t fxClose(void *comm, int kind, const char *what) {
  pthread_mutex_lock(&fxLock);
  ncclResult_t rc = ncclSuccess;
  struct fxComm *c = fxFind(comm, kind);
  if (c == NULL) {
    WARN("%s: unknown or closed comm %p", what, comm);
    rc = ncclInvalidArgument;
    goto out;
  }
  fxUnlink(&c->o);
  pthread_mutex_lock(&c->mu); /* waits for an operation in progress on another thread */
  for (int i = 0; i < c->nq; i++) fxFreeReq(c->q[i]); /* its requests die with it */
  c->nq = 0;
  c->closed = 1;
  pthread_mutex_unlock(&c->mu);
  for (struct fxObj *o = fxLive.next, *next; o != &fxLive; o = next) {
    next = o->next;
    if (o->kind == FX_MR && ((struct fxMr *)o)->comm == c) fxFree(o);
  }
  c->ref++;
  fxUnpin(c); /* closes the socket now unless another thread still holds the comm */
out:
  pthread_mutex_unlock(&fxLock);
  return rc;
}

static ncclResult_t fxCloseSend(void *sendComm) { return fxClose(sendComm, FX_SEND, "closeSend"); }
static ncclResult_t fxCloseRecv(void *recvComm) { return fxClose(recvComm, FX_RECV, "closeRecv"); }

FX_API ncclResult_t fxGetDeviceMr(void *comm, void *mhandle, void **dptr_mhandle) {
  if (dptr_mhandle != NULL) *dptr_mhandle = NULL;
  return ncclSuccess;
}

FX_API ncclResult_t fxIrecvConsumed(void *recvComm, int n, void *request) { return ncclSuccess; }

/* ------------------------------------------------------------------------------------------ */
/* v4 */

FX_API ncclResult_t fxInitV4(ncclDebugLogger_t logger) { return fxInit(logger); }

FX_API ncclResult_t fxGetPropertiesV4(int dev, ncclNetProperties_v4_t *props) {
  if (props == NULL) return ncclInvalidArgument;
  return fxProps(dev, &props->name, &props->pciPath, &props->guid, &props->ptrSupport, &props->speed, &props->port,
                 &props->maxComms);
}

FX_API ncclResult_t fxListenV4(int dev, void *handle, void **listenComm) {
  return fxListen(dev, handle, listenComm, NCCL_NET_HANDLE_MAXSIZE_V4);
}

/* v4 connect and accept block until they have an endpoint (as NCCL 2.10's socket net does). */
FX_API ncclResult_t fxConnectV4(int dev, void *handle, void **sendComm) {
  for (;;) {
    ncclResult_t rc = fxConnectStep(dev, handle, sendComm);
    if (rc != ncclSuccess || *sendComm != NULL) return rc;
    poll(NULL, 0, 1);
  }
}

FX_API ncclResult_t fxAcceptV4(void *listenComm, void **recvComm) {
  for (;;) {
    ncclResult_t rc = fxAcceptStep(listenComm, recvComm);
    if (rc != ncclSuccess || *recvComm != NULL) return rc;
    poll(NULL, 0, 1);
  }
}

FX_API ncclResult_t fxRegMrV4(void *comm, void *data, int size, int type, void **mhandle) {
  if (size < 0) {
    if (mhandle != NULL) *mhandle = NULL;
    WARN("regMr: negative size %d", size);
    return ncclInvalidArgument;
  }
  return fxRegMr(comm, data, (size_t)size, type, mhandle);
}

FX_API ncclResult_t fxIsendV4(void *sendComm, void *data, int size, void *mhandle, void **request) {
  if (size < 0) {
    WARN("isend: negative size %d", size);
    return ncclInvalidArgument;
  }
  return fxPost("isend", sendComm, 1, data, (size_t)size, 0, mhandle, request);
}

FX_API ncclResult_t fxIrecvV4(void *recvComm, void *data, int size, void *mhandle, void **request) {
  if (size < 0) {
    WARN("irecv: negative size %d", size);
    return ncclInvalidArgument;
  }
  return fxPost("irecv", recvComm, 0, data, (size_t)size, 0, mhandle, request);
}

FX_API ncclResult_t fxIflushV4(void *recvComm, void *data, int size, void *mhandle, void **request) {
  return fxIflush(recvComm, request);
}

/* What the v4 table and the v3 and v2 ones before it share (all blocking, int sizes). */
#define FX_V2_V4_COMMON                                                                               \
  .name = "Fixture", .init = fxInitV4, .devices = fxDevices, .listen = fxListenV4, .connect = fxConnectV4, \
  .accept = fxAcceptV4, .regMr = fxRegMrV4, .deregMr = fxDeregMr, .isend = fxIsendV4, .irecv = fxIrecvV4, \
  .test = fxTest, .closeSend = fxCloseSend, .closeRecv = fxCloseRecv, .closeListen = fxCloseListen

#ifdef FX_V4
FX_EXPORT ncclNet_v4_t ncclNetPlugin_v4 = {
    FX_V2_V4_COMMON,
    .getProperties = fxGetPropertiesV4,
    .iflush = fxIflushV4,
};
#endif

/* ------------------------------------------------------------------------------------------ */
/* v3 and v2: what old plugins export beside v4 (nccl4j reports them as not used) */

/* Host memory needs no flush: nothing to wait for. */
FX_API ncclResult_t fxFlushV3(void *recvComm, void *data, int size, void *mhandle) {
  void *request = NULL;
  return fxIflush(recvComm, &request);
}

FX_API ncclResult_t fxPciPathV2(int dev, char **path) {
  char *name;
  uint64_t guid;
  int ptr, speed, port, maxComms;
  ncclResult_t rc = fxProps(dev, &name, path, &guid, &ptr, &speed, &port, &maxComms);
  if (rc == ncclSuccess && *path != NULL) *path = strdup(*path); /* NCCL frees it */
  return rc;
}

FX_API ncclResult_t fxPtrSupportV2(int dev, int *supportedTypes) {
  char *name, *path;
  uint64_t guid;
  int speed, port, maxComms;
  return fxProps(dev, &name, &path, &guid, supportedTypes, &speed, &port, &maxComms);
}

#ifdef FX_V3
FX_EXPORT ncclNet_v3_t ncclNetPlugin_v3 = {
    FX_V2_V4_COMMON,
    .getProperties = fxGetPropertiesV4,
    .flush = fxFlushV3,
};
#endif

#ifdef FX_V2
FX_EXPORT ncclNet_v2_t ncclNetPlugin_v2 = {
    FX_V2_V4_COMMON,
    .pciPath = fxPciPathV2,
    .ptrSupport = fxPtrSupportV2,
    .flush = fxFlushV3,
};
#endif

/* ------------------------------------------------------------------------------------------ */
/* v8 */

FX_API ncclResult_t fxGetPropertiesV8(int dev, ncclNetProperties_v8_t *props) {
  if (props == NULL) return ncclInvalidArgument;
  ncclResult_t rc = fxProps(dev, &props->name, &props->pciPath, &props->guid, &props->ptrSupport, &props->speed,
                            &props->port, &props->maxComms);
  if (rc != ncclSuccess) return rc;
  props->regIsGlobal = 0;
  props->latency = 0;
  props->maxRecvs = 1;
  props->netDeviceType = NCCL_NET_DEVICE_HOST;
  props->netDeviceVersion = 0;
  return ncclSuccess;
}

FX_API ncclResult_t fxListenV5(int dev, void *handle, void **listenComm) {
  return fxListen(dev, handle, listenComm, NCCL_NET_HANDLE_MAXSIZE);
}

FX_API ncclResult_t fxConnectV8(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v8_t **sendDevComm) {
  if (sendDevComm != NULL) *sendDevComm = NULL;
  return fxConnectStep(dev, handle, sendComm);
}

FX_API ncclResult_t fxAcceptV8(void *listenComm, void **recvComm, ncclNetDeviceHandle_v8_t **recvDevComm) {
  if (recvDevComm != NULL) *recvDevComm = NULL;
  return fxAcceptStep(listenComm, recvComm);
}

FX_API ncclResult_t fxIsendV8(void *sendComm, void *data, int size, int tag, void *mhandle, void **request) {
  if (size < 0) {
    if (request != NULL) *request = NULL;
    WARN("isend: negative size %d", size);
    return ncclInvalidArgument;
  }
  return fxPost("isend", sendComm, 1, data, (size_t)size, tag, mhandle, request);
}

FX_API ncclResult_t fxIrecvV8(void *recvComm, int n, void **data, int *sizes, int *tags, void **mhandles,
                              void **request) {
  if (n == 1 && (sizes == NULL || sizes[0] < 0)) {
    if (request != NULL) *request = NULL;
    WARN("irecv: NULL or negative size");
    return ncclInvalidArgument;
  }
  return fxIrecv("irecv", recvComm, n, data, n == 1 ? (size_t)sizes[0] : 0, tags, mhandles, request);
}

FX_API ncclResult_t fxIflushV8(void *recvComm, int n, void **data, int *sizes, void **mhandles, void **request) {
  return fxIflush(recvComm, request);
}

#ifdef FX_V8
FX_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = {
    .name = "Fixture",
    .init = fxInitV4,
    .devices = fxDevices,
    .getProperties = fxGetPropertiesV8,
    .listen = fxListenV5,
    .connect = fxConnectV8,
    .accept = fxAcceptV8,
    .regMr = fxRegMr,
    .regMrDmaBuf = fxRegMrDmaBuf,
    .deregMr = fxDeregMr,
    .isend = fxIsendV8,
    .irecv = fxIrecvV8,
    .iflush = fxIflushV8,
    .test = fxTest,
    .closeSend = fxCloseSend,
    .closeRecv = fxCloseRecv,
    .closeListen = fxCloseListen,
    .getDeviceMr = fxGetDeviceMr,
    .irecvConsumed = fxIrecvConsumed,
};
#endif

/* ------------------------------------------------------------------------------------------ */
/* v10 */

FX_API ncclResult_t fxInitV10(ncclDebugLogger_t logger, ncclProfilerCallback_t profiler) { return fxInit(logger); }

FX_API ncclResult_t fxGetPropertiesV10(int dev, ncclNetProperties_v10_t *props) {
  if (props == NULL) return ncclInvalidArgument;
  ncclResult_t rc = fxProps(dev, &props->name, &props->pciPath, &props->guid, &props->ptrSupport, &props->speed,
                            &props->port, &props->maxComms);
  if (rc != ncclSuccess) return rc;
  props->regIsGlobal = 0;
  props->forceFlush = 0;
  props->latency = 0;
  props->maxRecvs = 1;
  props->netDeviceType = NCCL_NET_DEVICE_HOST;
  props->netDeviceVersion = 0;
  memset(&props->vProps, 0, sizeof props->vProps);
  props->vProps.ndevs = 1;
  props->vProps.devs[0] = dev;
  props->maxP2pBytes = INT_MAX;
  props->maxCollBytes = INT_MAX;
  return ncclSuccess;
}

FX_API ncclResult_t fxConnectV10(int dev, ncclNetCommConfig_v10_t *config, void *handle, void **sendComm,
                                 ncclNetDeviceHandle_v10_t **sendDevComm) {
  if (sendDevComm != NULL) *sendDevComm = NULL;
  if (config == NULL) {
    if (sendComm != NULL) *sendComm = NULL;
    WARN("connect: NULL config (pass {trafficClass = %d} for no traffic class)", NCCL_NET_TRAFFIC_CLASS_UNDEF);
    return ncclInvalidArgument;
  }
  volatile int trafficClass = config->trafficClass; /* real plugins read it */
  (void)trafficClass;
  return fxConnectStep(dev, handle, sendComm);
}

FX_API ncclResult_t fxIsendV10(void *sendComm, void *data, size_t size, int tag, void *mhandle, void *phandle,
                               void **request) {
  return fxPost("isend", sendComm, 1, data, size, tag, mhandle, request);
}

FX_API ncclResult_t fxIrecvV10(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles,
                               void **phandles, void **request) {
  if (n == 1 && sizes == NULL) {
    if (request != NULL) *request = NULL;
    WARN("irecv: NULL sizes");
    return ncclInvalidArgument;
  }
  /* Messages are at most INT_MAX bytes (maxP2pBytes): a larger buffer is fine, only clamped. */
  size_t size = n == 1 ? (sizes[0] > INT_MAX ? (size_t)INT_MAX : sizes[0]) : 0;
  return fxIrecv("irecv", recvComm, n, data, size, tags, mhandles, request);
}

FX_API ncclResult_t fxMakeVDevice(int *d, ncclNetVDeviceProps_v10_t *props) {
  WARN("makeVDevice: virtual devices are not supported");
  return ncclInvalidUsage;
}

#ifdef FX_V10
FX_EXPORT ncclNet_v10_t ncclNetPlugin_v10 = {
    .name = "Fixture",
    .init = fxInitV10,
    .devices = fxDevices,
    .getProperties = fxGetPropertiesV10,
    .listen = fxListenV5,
    .connect = fxConnectV10,
    .accept = fxAcceptV8,
    .regMr = fxRegMr,
    .regMrDmaBuf = fxRegMrDmaBuf,
    .deregMr = fxDeregMr,
    .isend = fxIsendV10,
    .irecv = fxIrecvV10,
    .iflush = fxIflushV8,
    .test = fxTest,
    .closeSend = fxCloseSend,
    .closeRecv = fxCloseRecv,
    .closeListen = fxCloseListen,
    .getDeviceMr = fxGetDeviceMr,
    .irecvConsumed = fxIrecvConsumed,
    .makeVDevice = fxMakeVDevice,
};
#endif
