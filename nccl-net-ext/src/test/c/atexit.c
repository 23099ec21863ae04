/*
 * nccl4j test fixture: ncclNetPlugin_v8 "AtExit", which logs where real plugins do and a JVM
 * least expects it. init logs an INFO line from a thread of its own (one the JVM never saw) and
 * registers an atexit cleanup that logs through the same logger, as plugins that tear down their
 * fabric at exit do. That line comes from whichever thread calls exit(): the JVM's VM thread
 * after System.exit or Runtime.halt, the launcher's main thread after DestroyJavaVM; no upcall
 * into Java is possible from either. No devices, no data path.
 */
#define ND_NAME "AtExit"
#define ND_WHY "this fixture has no data path"
#include "fixture_nodata.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *axThread(void *arg) {
  ndLogger(NCCL_LOG_INFO, NCCL_NET, __FILE__, __LINE__, "NET/AtExit : hello from a plugin thread");
  return NULL;
}

static void axCleanup(void) {
  ndLogger(NCCL_LOG_INFO, NCCL_INIT | NCCL_NET, __FILE__, __LINE__, "NET/AtExit : atexit cleanup of process %d",
           (int)getpid());
}

static ncclResult_t axInit(ncclDebugLogger_t logFunction) {
  if (logFunction == NULL) return ncclInvalidArgument;
  if (ndLogger != NULL) return ncclSuccess;
  ndLogger = logFunction;
  pthread_t t;
  if (pthread_create(&t, NULL, axThread, NULL) != 0 || pthread_join(t, NULL) != 0) return ncclSystemError;
  return atexit(axCleanup) == 0 ? ncclSuccess : ncclSystemError;
}

static ncclResult_t axDevices(int *ndev) {
  if (ndev == NULL) return ndFail();
  *ndev = 0;
  return ncclSuccess;
}

ND_EXPORT_V8(axInit, axDevices);
