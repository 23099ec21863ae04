/*
 * nccl4j test fixtures: smoke test of the native fixtures without Java.
 * Usage: fixture-driver <dir with the fixture libraries>
 * For v4, v8 and v10 of libnccl-net-fixture.so (and the single-version builds) it connects
 * pairs with listen/connect/accept on two threads, moves tagged messages both ways at once and
 * checks every byte, then checks requests limits, errors and closes; then the broken fixtures.
 */
#define _GNU_SOURCE
#include "fixture_abi.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures;
static int warns;
static int quiet;
static int verboseWarns;

#define CHECK(cond, ...)                                           \
  do {                                                             \
    if (!(cond)) {                                                 \
      failures++;                                                  \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                \
      fprintf(stderr, "\n");                                       \
    }                                                              \
  } while (0)

static void logger(ncclDebugLogLevel level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  if (level == NCCL_LOG_WARN) __atomic_add_fetch(&warns, 1, __ATOMIC_SEQ_CST);
  if (quiet && !verboseWarns && level != NCCL_LOG_INFO) return;
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "  [%s flags=0x%lx %s:%d] %s\n", level == NCCL_LOG_WARN ? "WARN" : level == NCCL_LOG_INFO ? "INFO" : "LOG",
          flags, strrchr(file, '/') ? strrchr(file, '/') + 1 : file, line, buf);
}

/* ---- one API over the three versions ---- */

struct api {
  int v;
  ncclNet_v4_t *v4;
  ncclNet_v8_t *v8;
  ncclNet_v10_t *v10;
};

static ncclResult_t aInit(struct api *a) {
  return a->v == 4 ? a->v4->init(logger) : a->v == 8 ? a->v8->init(logger) : a->v10->init(logger, NULL);
}
static ncclResult_t aDevices(struct api *a, int *n) {
  return a->v == 4 ? a->v4->devices(n) : a->v == 8 ? a->v8->devices(n) : a->v10->devices(n);
}
static ncclResult_t aProps(struct api *a, int dev, char **name, int *speed, int *ptr) {
  ncclResult_t rc;
  if (a->v == 4) {
    ncclNetProperties_v4_t p;
    memset(&p, 0, sizeof p);
    rc = a->v4->getProperties(dev, &p);
    *name = p.name, *speed = p.speed, *ptr = p.ptrSupport;
  } else if (a->v == 8) {
    ncclNetProperties_v8_t p;
    memset(&p, 0, sizeof p);
    rc = a->v8->getProperties(dev, &p);
    *name = p.name, *speed = p.speed, *ptr = p.ptrSupport;
    if (rc == ncclSuccess) CHECK(p.maxRecvs == 1 && p.maxComms > 0, "v8 props");
  } else {
    ncclNetProperties_v10_t p;
    memset(&p, 0, sizeof p);
    rc = a->v10->getProperties(dev, &p);
    *name = p.name, *speed = p.speed, *ptr = p.ptrSupport;
    if (rc == ncclSuccess)
      CHECK(p.maxRecvs == 1 && p.vProps.ndevs == 1 && p.vProps.devs[0] == dev && p.maxP2pBytes == 0x7fffffff,
            "v10 props");
  }
  return rc;
}
static ncclResult_t aListen(struct api *a, int dev, void *h, void **l) {
  return a->v == 4 ? a->v4->listen(dev, h, l) : a->v == 8 ? a->v8->listen(dev, h, l) : a->v10->listen(dev, h, l);
}
static ncclResult_t aConnect(struct api *a, int dev, void *h, void **s) {
  ncclNetCommConfig_v10_t cfg = {NCCL_NET_TRAFFIC_CLASS_UNDEF};
  ncclNetDeviceHandle_v10_t *dc = NULL;
  return a->v == 4 ? a->v4->connect(dev, h, s) : a->v == 8 ? a->v8->connect(dev, h, s, &dc)
                                                          : a->v10->connect(dev, &cfg, h, s, &dc);
}
static ncclResult_t aAccept(struct api *a, void *l, void **r) {
  ncclNetDeviceHandle_v10_t *dc = NULL;
  return a->v == 4 ? a->v4->accept(l, r) : a->v == 8 ? a->v8->accept(l, r, &dc) : a->v10->accept(l, r, &dc);
}
static ncclResult_t aRegMr(struct api *a, void *c, void *d, size_t size, int type, void **mh) {
  return a->v == 4 ? a->v4->regMr(c, d, (int)size, type, mh)
         : a->v == 8 ? a->v8->regMr(c, d, size, type, mh) : a->v10->regMr(c, d, size, type, mh);
}
static ncclResult_t aDeregMr(struct api *a, void *c, void *mh) {
  return a->v == 4 ? a->v4->deregMr(c, mh) : a->v == 8 ? a->v8->deregMr(c, mh) : a->v10->deregMr(c, mh);
}
static ncclResult_t aIsend(struct api *a, void *c, void *d, size_t size, int tag, void *mh, void **req) {
  return a->v == 4 ? a->v4->isend(c, d, (int)size, mh, req)
         : a->v == 8 ? a->v8->isend(c, d, (int)size, tag, mh, req) : a->v10->isend(c, d, size, tag, mh, NULL, req);
}
static ncclResult_t aIrecv(struct api *a, void *c, void *d, size_t size, int tag, void *mh, void **req) {
  if (a->v == 4) return a->v4->irecv(c, d, (int)size, mh, req);
  if (a->v == 8) {
    int s = (int)size;
    return a->v8->irecv(c, 1, &d, &s, &tag, &mh, req);
  }
  void *ph = NULL;
  return a->v10->irecv(c, 1, &d, &size, &tag, &mh, &ph, req);
}
static ncclResult_t aTest(struct api *a, void *req, int *done, int *size) {
  return a->v == 4 ? a->v4->test(req, done, size) : a->v == 8 ? a->v8->test(req, done, size) : a->v10->test(req, done, size);
}
static ncclResult_t aCloseSend(struct api *a, void *c) {
  return a->v == 4 ? a->v4->closeSend(c) : a->v == 8 ? a->v8->closeSend(c) : a->v10->closeSend(c);
}
static ncclResult_t aCloseRecv(struct api *a, void *c) {
  return a->v == 4 ? a->v4->closeRecv(c) : a->v == 8 ? a->v8->closeRecv(c) : a->v10->closeRecv(c);
}
static ncclResult_t aCloseListen(struct api *a, void *c) {
  return a->v == 4 ? a->v4->closeListen(c) : a->v == 8 ? a->v8->closeListen(c) : a->v10->closeListen(c);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- connection set-up on two threads ---- */

struct connectArgs {
  struct api *a;
  void *handle;
  void *comm;
  ncclResult_t rc;
};

static void *connectThread(void *p) {
  struct connectArgs *c = p;
  double deadline = now() + 10;
  do {
    c->rc = aConnect(c->a, 0, c->handle, &c->comm);
    if (c->rc != ncclSuccess || c->comm != NULL) break;
    usleep(100);
  } while (now() < deadline);
  return NULL;
}

struct pair {
  void *send, *recv;
};

static int openPair(struct api *a, struct pair *p, int oneThread) {
  char handle[NCCL_NET_HANDLE_MAXSIZE];
  memset(handle, 0, sizeof handle);
  void *listen = NULL;
  p->send = p->recv = NULL;
  ncclResult_t rc = aListen(a, 0, handle, &listen);
  CHECK(rc == ncclSuccess && listen != NULL, "listen rc=%d", rc);
  if (rc != ncclSuccess) return -1;
  if (oneThread) { /* NCCL's way for v5+: alternate until both ends exist */
    double deadline = now() + 10;
    while ((p->send == NULL || p->recv == NULL) && now() < deadline) {
      if (p->send == NULL) CHECK((rc = aConnect(a, 0, handle, &p->send)) == ncclSuccess, "connect rc=%d", rc);
      if (p->recv == NULL) CHECK((rc = aAccept(a, listen, &p->recv)) == ncclSuccess, "accept rc=%d", rc);
      if (rc != ncclSuccess) break;
    }
  } else {
    struct connectArgs c = {a, handle, NULL, ncclSuccess};
    pthread_t t;
    pthread_create(&t, NULL, connectThread, &c);
    double deadline = now() + 10;
    do {
      rc = aAccept(a, listen, &p->recv);
      if (rc != ncclSuccess || p->recv != NULL) break;
      usleep(100);
    } while (now() < deadline);
    pthread_join(t, NULL);
    p->send = c.comm;
    CHECK(c.rc == ncclSuccess, "connect rc=%d", c.rc);
    CHECK(rc == ncclSuccess, "accept rc=%d", rc);
  }
  CHECK(p->send != NULL && p->recv != NULL, "pair not connected");
  CHECK(aCloseListen(a, listen) == ncclSuccess, "closeListen");
  return p->send != NULL && p->recv != NULL ? 0 : -1;
}

/* ---- transfers ---- */

static void pattern(unsigned char *b, size_t n, unsigned seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    b[i] = (unsigned char)(x >> 16);
  }
}

/* Polls a request until done; returns its size or -1 on error (rc in *err). */
static long waitReq(struct api *a, void *req, ncclResult_t *err) {
  double deadline = now() + 60;
  int done = 0, size = -1;
  *err = ncclSuccess;
  while (now() < deadline) {
    ncclResult_t rc = aTest(a, req, &done, &size);
    if (rc != ncclSuccess) {
      *err = rc;
      return -1;
    }
    if (done) return size;
  }
  *err = ncclInternalError;
  fprintf(stderr, "request timed out\n");
  return -1;
}

struct sideArgs {
  struct api *a;
  void *send, *recv; /* send on one connection, receive on the other */
  size_t size;
  int tag, peerTag;
  unsigned seed, peerSeed;
  int ok;
  double seconds;
};

/* Posts one send and one receive and drives both until done (as a proxy thread would). */
static void *sideThread(void *p) {
  struct sideArgs *s = p;
  struct api *a = s->a;
  size_t cap = s->size + 64;
  unsigned char *src = malloc(s->size + 1), *dst = malloc(cap);
  pattern(src, s->size, s->seed);
  memset(dst, 0xA5, cap);
  void *smh = NULL, *rmh = NULL, *sreq = NULL, *rreq = NULL;
  s->ok = 0;
  double t0 = now();
  CHECK(aRegMr(a, s->send, src, s->size, NCCL_PTR_HOST, &smh) == ncclSuccess && smh != NULL, "regMr send");
  CHECK(aRegMr(a, s->recv, dst, cap, NCCL_PTR_HOST, &rmh) == ncclSuccess && rmh != NULL, "regMr recv");
  while (sreq == NULL) CHECK(aIsend(a, s->send, src, s->size, s->tag, smh, &sreq) == ncclSuccess, "isend");
  while (rreq == NULL) CHECK(aIrecv(a, s->recv, dst, cap, s->peerTag, rmh, &rreq) == ncclSuccess, "irecv");
  int sdone = 0, rdone = 0, ssize = -1, rsize = -1;
  double deadline = now() + 60;
  while ((!sdone || !rdone) && now() < deadline) {
    if (!sdone && aTest(a, sreq, &sdone, &ssize) != ncclSuccess) break;
    if (!rdone && aTest(a, rreq, &rdone, &rsize) != ncclSuccess) break;
  }
  s->seconds = now() - t0;
  CHECK(sdone && rdone, "transfer of %zu bytes did not finish", s->size);
  CHECK(ssize == (int)s->size && rsize == (int)s->size, "sizes %d %d for %zu", ssize, rsize, s->size);
  unsigned char *expect = malloc(s->size + 1);
  pattern(expect, s->size, s->peerSeed);
  int same = memcmp(expect, dst, s->size) == 0;
  CHECK(same, "received bytes differ (%zu bytes)", s->size);
  int untouched = 1;
  for (size_t i = s->size; i < cap; i++) untouched &= dst[i] == 0xA5;
  CHECK(untouched, "bytes past the message were written");
  CHECK(aDeregMr(a, s->send, smh) == ncclSuccess && aDeregMr(a, s->recv, rmh) == ncclSuccess, "deregMr");
  s->ok = sdone && rdone && same && untouched;
  free(expect);
  free(src);
  free(dst);
  return NULL;
}

static void bothWays(struct api *a, struct pair *p1, struct pair *p2, size_t size, int k) {
  int tag1 = a->v == 4 ? 0 : 100 + k, tag2 = a->v == 4 ? 0 : 200 + k;
  struct sideArgs x = {a, p1->send, p2->recv, size, tag1, tag2, 11u + k, 22u + k, 0, 0};
  struct sideArgs y = {a, p2->send, p1->recv, size, tag2, tag1, 22u + k, 11u + k, 0, 0};
  pthread_t tx, ty;
  pthread_create(&tx, NULL, sideThread, &x);
  pthread_create(&ty, NULL, sideThread, &y);
  pthread_join(tx, NULL);
  pthread_join(ty, NULL);
  double dt = x.seconds > y.seconds ? x.seconds : y.seconds;
  printf("  v%d: %9zu bytes both ways, tags %d/%d: %s (%.1f ms, %.0f MB/s per direction)\n", a->v, size, tag1, tag2,
         x.ok && y.ok ? "ok" : "FAILED", dt * 1e3, size / dt / 1e6);
}

/* Posts one message of ssize bytes with stag, receives it into rsize bytes with rtag; returns the
 * receive's result code. */
static ncclResult_t oneMessage(struct api *a, struct pair *p, size_t ssize, int stag, size_t rsize, int rtag, long *got) {
  char *src = calloc(1, ssize + 1), *dst = calloc(1, rsize + 1);
  void *smh, *rmh, *sreq = NULL, *rreq = NULL;
  aRegMr(a, p->send, src, ssize, NCCL_PTR_HOST, &smh);
  aRegMr(a, p->recv, dst, rsize, NCCL_PTR_HOST, &rmh);
  CHECK(aIsend(a, p->send, src, ssize, stag, smh, &sreq) == ncclSuccess && sreq, "isend");
  CHECK(aIrecv(a, p->recv, dst, rsize, rtag, rmh, &rreq) == ncclSuccess && rreq, "irecv");
  ncclResult_t err;
  long s = waitReq(a, sreq, &err);
  CHECK(s == (long)ssize, "send size %ld", s);
  *got = waitReq(a, rreq, &err);
  free(src);
  free(dst);
  return err;
}

static void closePair(struct api *a, struct pair *p) {
  if (p->send) CHECK(aCloseSend(a, p->send) == ncclSuccess, "closeSend");
  if (p->recv) CHECK(aCloseRecv(a, p->recv) == ncclSuccess, "closeRecv");
}

static void runVersion(const char *lib, int v) {
  int before = failures;
  printf("== %s: ncclNetPlugin_v%d\n", lib, v);
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen: %s", dlerror());
  if (h == NULL) return;
  char sym[32];
  snprintf(sym, sizeof sym, "ncclNetPlugin_v%d", v);
  struct api a = {v, NULL, NULL, NULL};
  void *s = dlsym(h, sym);
  CHECK(s != NULL, "dlsym %s", sym);
  if (s == NULL) return;
  if (v == 4) a.v4 = s;
  if (v == 8) a.v8 = s;
  if (v == 10) a.v10 = s;
  const char *name = v == 4 ? a.v4->name : v == 8 ? a.v8->name : a.v10->name;
  CHECK(strcmp(name, "Fixture") == 0, "name %s", name);

  quiet = 0;
  CHECK(aInit(&a) == ncclSuccess, "init");
  CHECK(aInit(&a) == ncclSuccess, "second init");
  int n = 0;
  CHECK(aDevices(&a, &n) == ncclSuccess && n >= 1, "devices %d", n);
  for (int d = 0; d < n; d++) {
    char *dn = NULL;
    int speed = 0, ptr = 0;
    CHECK(aProps(&a, d, &dn, &speed, &ptr) == ncclSuccess, "props %d", d);
    printf("  device %d: %s speed %d ptrSupport 0x%x\n", d, dn, speed, ptr);
    CHECK(ptr == NCCL_PTR_HOST && speed > 0, "props");
  }
  quiet = 1;
  char *dn;
  int speed, ptr;
  CHECK(aProps(&a, n, &dn, &speed, &ptr) == ncclInvalidArgument, "props of a bad device");
  CHECK(aProps(&a, -1, &dn, &speed, &ptr) == ncclInvalidArgument, "props of a bad device");

  /* Set-up: on two threads, and (v8/v10) on one thread alternating, as NCCL does. */
  struct pair p1, p2;
  if (openPair(&a, &p1, 0) || openPair(&a, &p2, v != 4)) goto done;

  size_t sizes[] = {0, 1, 1 << 20, 64 << 20};
  for (int k = 0; k < 4; k++) bothWays(&a, &p1, &p2, sizes[k], k);

  /* v8/v10: the first connect only starts (NULL); a stray connection that never says hello
   * does not keep accept from the real one. */
  if (v != 4) {
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    memset(handle, 0, sizeof handle);
    void *listen = NULL, *sc = NULL, *rc = NULL;
    CHECK(aListen(&a, 0, handle, &listen) == ncclSuccess, "listen");
    struct { uint64_t magic; struct sockaddr_in addr; } raw;
    memcpy(&raw, handle, sizeof raw);
    int junk = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(junk, (struct sockaddr *)&raw.addr, sizeof raw.addr) == 0, "junk connect");
    CHECK(aAccept(&a, listen, &rc) == ncclSuccess && rc == NULL, "accept of a silent connection");
    CHECK(aConnect(&a, 0, handle, &sc) == ncclSuccess && sc == NULL, "first connect call returned a comm");
    double deadline = now() + 10;
    while ((sc == NULL || rc == NULL) && now() < deadline) {
      if (sc == NULL) aConnect(&a, 0, handle, &sc);
      if (rc == NULL) aAccept(&a, listen, &rc);
    }
    CHECK(sc != NULL && rc != NULL, "connect behind a silent connection");
    struct pair p = {sc, rc};
    long got;
    CHECK(oneMessage(&a, &p, 5, 1, 5, 1, &got) == ncclSuccess && got == 5, "message");
    closePair(&a, &p);
    close(junk);
    CHECK(aCloseListen(&a, listen) == ncclSuccess, "closeListen");
    printf("  v%d: first connect answers NULL; a silent connection does not block accept: ok\n", v);
  }

  /* Garbage and all-zero handles are refused at once. */
  char bad[NCCL_NET_HANDLE_MAXSIZE];
  void *comm = NULL;
  for (size_t i = 0; i < sizeof bad; i++) bad[i] = (char)(i * 37 + 5);
  CHECK(aConnect(&a, 0, bad, &comm) != ncclSuccess && comm == NULL, "garbage handle accepted");
  memset(bad, 0, sizeof bad);
  CHECK(aConnect(&a, 0, bad, &comm) != ncclSuccess && comm == NULL, "zero handle accepted");

  /* At most 8 requests per comm: the 9th post answers NULL; all complete in order. */
  {
    enum { N = NCCL_NET_MAX_REQUESTS };
    static char sbuf[N][1000], rbuf[N][1100];
    void *smh, *rmh, *sreq[N], *rreq[N], *extra = (void *)1;
    for (int i = 0; i < N; i++) memset(sbuf[i], 'a' + i, sizeof sbuf[i]);
    aRegMr(&a, p1.send, sbuf, sizeof sbuf, NCCL_PTR_HOST, &smh);
    aRegMr(&a, p1.recv, rbuf, sizeof rbuf, NCCL_PTR_HOST, &rmh);
    for (int i = 0; i < N; i++)
      CHECK(aIsend(&a, p1.send, sbuf[i], 100 * (i + 1), 7, smh, &sreq[i]) == ncclSuccess && sreq[i], "isend %d", i);
    CHECK(aIsend(&a, p1.send, sbuf[0], 10, 7, smh, &extra) == ncclSuccess && extra == NULL, "9th isend not NULL");
    for (int i = 0; i < N; i++)
      CHECK(aIrecv(&a, p1.recv, rbuf[i], sizeof rbuf[i], 7, rmh, &rreq[i]) == ncclSuccess && rreq[i], "irecv %d", i);
    extra = (void *)1;
    CHECK(aIrecv(&a, p1.recv, rbuf[0], 10, 7, rmh, &extra) == ncclSuccess && extra == NULL, "9th irecv not NULL");
    ncclResult_t err;
    for (int i = 0; i < N; i++) CHECK(waitReq(&a, sreq[i], &err) == 100 * (i + 1), "send %d", i);
    for (int i = 0; i < N; i++) {
      CHECK(waitReq(&a, rreq[i], &err) == 100 * (i + 1), "recv %d", i);
      CHECK(rbuf[i][0] == 'a' + i && rbuf[i][100 * (i + 1) - 1] == 'a' + i, "content %d", i);
    }
    int done;
    CHECK(aTest(&a, sreq[0], &done, NULL) == ncclInvalidArgument, "test of a completed request");
    CHECK(aDeregMr(&a, p1.send, smh) == ncclSuccess && aDeregMr(&a, p1.recv, rmh) == ncclSuccess, "dereg");
    printf("  v%d: 8 requests in flight, 9th refused with NULL, completed in order: ok\n", v);
  }

  /* Memory types. */
  {
    char buf[64];
    void *mh = (void *)1;
    CHECK(aRegMr(&a, p1.send, buf, sizeof buf, NCCL_PTR_CUDA, &mh) == ncclInternalError && mh == NULL, "CUDA regMr");
    if (v >= 8) {
      ncclResult_t rc = v == 8 ? a.v8->regMrDmaBuf(p1.send, buf, 64, NCCL_PTR_DMABUF, 0, -1, &mh)
                               : a.v10->regMrDmaBuf(p1.send, buf, 64, NCCL_PTR_DMABUF, 0, -1, &mh);
      CHECK(rc == ncclInternalError, "regMrDmaBuf");
    }
    if (v == 10) {
      int d = -1;
      ncclNetVDeviceProps_v10_t vp = {1, {0}};
      CHECK(a.v10->makeVDevice(&d, &vp) == ncclInvalidUsage, "makeVDevice");
      void *dptr = (void *)1;
      CHECK(a.v10->getDeviceMr(p1.send, NULL, &dptr) == ncclSuccess && dptr == NULL, "getDeviceMr");
    }
  }

  /* Smaller message than the buffer is fine; larger is an error; a wrong tag is an error. */
  {
    struct pair p;
    long got;
    if (openPair(&a, &p, 0) == 0) {
      CHECK(oneMessage(&a, &p, 10, 3, 100, 3, &got) == ncclSuccess && got == 10, "small message: %ld", got);
      CHECK(oneMessage(&a, &p, 100, 3, 50, 3, &got) == ncclInternalError, "too large message accepted");
      closePair(&a, &p);
    }
    if (v != 4 && openPair(&a, &p, 0) == 0) {
      CHECK(oneMessage(&a, &p, 10, 3, 100, 4, &got) == ncclInternalError, "wrong tag accepted");
      closePair(&a, &p);
    }
    printf("  v%d: short message, oversized message and (v8+) tag mismatch: checked\n", v);
  }

  /* The peer's close is seen as an error, on either side. */
  {
    struct pair p;
    if (openPair(&a, &p, 0) == 0) {
      char buf[16];
      void *mh, *req = NULL;
      aRegMr(&a, p.recv, buf, sizeof buf, NCCL_PTR_HOST, &mh);
      CHECK(aIrecv(&a, p.recv, buf, sizeof buf, 0, mh, &req) == ncclSuccess && req, "irecv");
      int done = 0;
      CHECK(aTest(&a, req, &done, NULL) == ncclSuccess && !done, "receive done before any send");
      CHECK(aCloseSend(&a, p.send) == ncclSuccess, "closeSend");
      ncclResult_t err;
      CHECK(waitReq(&a, req, &err) < 0 && err == ncclSystemError, "receive from a closed peer: %d", err);
      CHECK(aCloseRecv(&a, p.recv) == ncclSuccess, "closeRecv");
    }
    if (openPair(&a, &p, 0) == 0) {
      size_t big = 64 << 20;
      char *buf = malloc(big);
      void *mh, *req = NULL;
      aRegMr(&a, p.send, buf, big, NCCL_PTR_HOST, &mh);
      CHECK(aIsend(&a, p.send, buf, big, 0, mh, &req) == ncclSuccess && req, "isend");
      CHECK(aCloseRecv(&a, p.recv) == ncclSuccess, "closeRecv");
      ncclResult_t err;
      CHECK(waitReq(&a, req, &err) < 0 && err == ncclSystemError, "send to a closed peer: %d", err);
      void *req2 = NULL;
      CHECK(aIsend(&a, p.send, buf, 1, 0, mh, &req2) != ncclSuccess, "isend on a failed connection");
      CHECK(aCloseSend(&a, p.send) == ncclSuccess, "closeSend");
      CHECK(aIsend(&a, p.send, buf, 1, 0, mh, &req2) == ncclInvalidArgument, "isend on a closed comm");
      free(buf);
    }
    printf("  v%d: peer closes seen as ncclSystemError on both sides: checked\n", v);
  }
  closePair(&a, &p1);
  closePair(&a, &p2);
  void *req = NULL;
  char b;
  CHECK(aIrecv(&a, p1.recv, &b, 1, 0, NULL, &req) == ncclInvalidArgument, "irecv on a closed comm");
done:
  printf("  v%d: %s (%d WARN lines logged, all expected)\n", v, failures == before ? "PASS" : "FAIL", warns);
  warns = 0;
  quiet = 0;
}

static struct sigaction segvNow(void) {
  struct sigaction sa;
  sigaction(SIGSEGV, NULL, &sa);
  return sa;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  setvbuf(stdout, NULL, _IOLBF, 0);
  verboseWarns = getenv("FIXTURE_DRIVER_VERBOSE") != NULL; /* also print the expected WARNs */
  /* The combined library through each of its symbols (one state, init once, as the adapter
   * would probe), then the single-version builds. */
  snprintf(path, sizeof path, "%s/libnccl-net-fixture.so", dir);
  runVersion(path, 10);
  runVersion(path, 8);
  runVersion(path, 4);
  snprintf(path, sizeof path, "%s/libnccl-net-fixture-v8.so", dir);
  runVersion(path, 8);
  snprintf(path, sizeof path, "%s/libnccl-net-fixture-v4.so", dir);
  runVersion(path, 4);

  printf("== broken fixtures\n");
  snprintf(path, sizeof path, "%s/libnccl-net-nosym.so", dir);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen nosym: %s", dlerror());
  if (h) {
    const char *syms[] = {"ncclNetPlugin_v10", "ncclNetPlugin_v9", "ncclNetPlugin_v8", "ncclNetPlugin_v7",
                          "ncclNetPlugin_v6", "ncclNetPlugin_v5", "ncclNetPlugin_v4"};
    for (int i = 0; i < 7; i++) CHECK(dlsym(h, syms[i]) == NULL, "nosym exports %s", syms[i]);
    printf("  nosym: loads, no ncclNetPlugin_v10..v4: ok\n");
  }
  snprintf(path, sizeof path, "%s/libnccl-net-initfail.so", dir);
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen initfail: %s", dlerror());
  if (h) {
    ncclNet_v8_t *n = dlsym(h, "ncclNetPlugin_v8");
    CHECK(n != NULL && dlsym(h, "ncclNetPlugin_v10") == NULL, "initfail symbols");
    if (n) {
      warns = 0;
      CHECK(n->init(logger) == ncclInternalError && warns == 1, "initfail init");
      printf("  initfail: init logs one WARN and returns ncclInternalError: ok\n");
    }
  }
  snprintf(path, sizeof path, "%s/libnccl-net-sigsegv.so", dir);
  struct sigaction before = segvNow();
  h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  CHECK(h != NULL, "dlopen sigsegv: %s", dlerror());
  struct sigaction after = segvNow();
  CHECK(memcmp(&before.sa_sigaction, &after.sa_sigaction, sizeof after.sa_sigaction) != 0,
        "sigsegv did not change the SIGSEGV handler");
  CHECK(h && dlsym(h, "ncclNetPlugin_v8") != NULL, "sigsegv exports ncclNetPlugin_v8");
  sigaction(SIGSEGV, &before, NULL); /* what an adapter does when it refuses the library */
  printf("  sigsegv: dlopen replaced the SIGSEGV handler (%p -> %p), restored: ok\n", (void *)before.sa_handler,
         (void *)after.sa_handler);

  printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
