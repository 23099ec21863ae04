/*
 * nccl4j test fixture: a library whose constructor replaces the SIGSEGV handler at dlopen time,
 * as PSM's libinfinipath does (pulled in by some libfabric builds). HotSpot relies on its own
 * SIGSEGV handler, so an adapter must compare the handlers before and after dlopen and refuse
 * such a plugin. It exports ncclNetPlugin_v8 so that only that check keeps it from being used;
 * every entry point fails.
 *
 * Unlike libinfinipath, the handler chains to the handler it replaced, so a JVM that loaded
 * this library (and did not restore its handler) keeps working; set
 * NCCL4J_FIXTURE_SIGSEGV_FATAL=1 before loading to make it fatal, as the real one is.
 */
#define _GNU_SOURCE
#include "fixture_abi.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct sigaction previous;
static int fatal;

static void segvHandler(int sig, siginfo_t *info, void *ucontext) {
  if (fatal) {
    static const char msg[] = "libnccl-net-sigsegv: caught SIGSEGV (test fixture), exiting\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(139);
  }
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction != NULL) previous.sa_sigaction(sig, info, ucontext);
    return;
  }
  if (previous.sa_handler == SIG_IGN) return;
  if (previous.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  previous.sa_handler(sig);
}

__attribute__((constructor)) static void installHandler(void) {
  const char *f = getenv("NCCL4J_FIXTURE_SIGSEGV_FATAL");
  fatal = f != NULL && strcmp(f, "1") == 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segvHandler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous);
}

/* Exported so that the library looks like a plugin; reaching any of these is a test failure. */
FX_EXPORT int nccl4jFixtureSigsegvHandlerInstalled(void) {
  struct sigaction now;
  sigaction(SIGSEGV, NULL, &now);
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == segvHandler;
}

static ncclDebugLogger_t logger;

static ncclResult_t sgFail(void) {
  if (logger != NULL)
    logger(NCCL_LOG_WARN, NCCL_NET, __FILE__, __LINE__,
           "NET/SigSegv : this fixture must be refused after dlopen (it replaced the SIGSEGV handler)");
  return ncclInternalError;
}

static ncclResult_t sgInit(ncclDebugLogger_t logFunction) {
  logger = logFunction;
  return sgFail();
}
static ncclResult_t sgDevices(int *ndev) { return sgFail(); }
static ncclResult_t sgGetProperties(int dev, ncclNetProperties_v8_t *props) { return sgFail(); }
static ncclResult_t sgListen(int dev, void *handle, void **listenComm) { return sgFail(); }
static ncclResult_t sgConnect(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v8_t **devComm) { return sgFail(); }
static ncclResult_t sgAccept(void *listenComm, void **recvComm, ncclNetDeviceHandle_v8_t **devComm) { return sgFail(); }
static ncclResult_t sgRegMr(void *comm, void *data, size_t size, int type, void **mhandle) { return sgFail(); }
static ncclResult_t sgRegMrDmaBuf(void *comm, void *data, size_t size, int type, uint64_t offset, int fd, void **mhandle) {
  return sgFail();
}
static ncclResult_t sgDeregMr(void *comm, void *mhandle) { return sgFail(); }
static ncclResult_t sgIsend(void *comm, void *data, int size, int tag, void *mhandle, void **request) { return sgFail(); }
static ncclResult_t sgIrecv(void *comm, int n, void **data, int *sizes, int *tags, void **mhandles, void **request) {
  return sgFail();
}
static ncclResult_t sgIflush(void *comm, int n, void **data, int *sizes, void **mhandles, void **request) { return sgFail(); }
static ncclResult_t sgTest(void *request, int *done, int *sizes) { return sgFail(); }
static ncclResult_t sgClose(void *comm) { return sgFail(); }
static ncclResult_t sgGetDeviceMr(void *comm, void *mhandle, void **dptr) { return sgFail(); }
static ncclResult_t sgIrecvConsumed(void *comm, int n, void *request) { return sgFail(); }

FX_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = {
    .name = "SigSegv",
    .init = sgInit,
    .devices = sgDevices,
    .getProperties = sgGetProperties,
    .listen = sgListen,
    .connect = sgConnect,
    .accept = sgAccept,
    .regMr = sgRegMr,
    .regMrDmaBuf = sgRegMrDmaBuf,
    .deregMr = sgDeregMr,
    .isend = sgIsend,
    .irecv = sgIrecv,
    .iflush = sgIflush,
    .test = sgTest,
    .closeSend = sgClose,
    .closeRecv = sgClose,
    .closeListen = sgClose,
    .getDeviceMr = sgGetDeviceMr,
    .irecvConsumed = sgIrecvConsumed,
};
