/*
 * nccl4j test fixtures: an ncclNet_v8 plugin without a data path, for fixtures that test loading,
 * init and logging only. Before including this, a fixture defines ND_NAME (its plugin name) and
 * ND_WHY (what the WARN of a refused call says); its init stores the logger in ndLogger; it then
 * exports its table with ND_EXPORT_V8(init, devices). Every other entry point logs that WARN and
 * fails with ncclInternalError.
 */
#ifndef NCCL4J_FIXTURE_NODATA_H
#define NCCL4J_FIXTURE_NODATA_H

#include "fixture_abi.h"

#define ND_API static __attribute__((unused))

static ncclDebugLogger_t ndLogger;

static ncclResult_t ndFail(void) {
  if (ndLogger != NULL) ndLogger(NCCL_LOG_WARN, NCCL_NET, __FILE__, __LINE__, "NET/" ND_NAME " : " ND_WHY);
  return ncclInternalError;
}

ND_API ncclResult_t ndDevices(int *ndev) { return ndFail(); }
static ncclResult_t ndGetProperties(int dev, ncclNetProperties_v8_t *props) { return ndFail(); }
static ncclResult_t ndListen(int dev, void *handle, void **listenComm) { return ndFail(); }
static ncclResult_t ndConnect(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v8_t **devComm) { return ndFail(); }
static ncclResult_t ndAccept(void *listenComm, void **recvComm, ncclNetDeviceHandle_v8_t **devComm) { return ndFail(); }
static ncclResult_t ndRegMr(void *comm, void *data, size_t size, int type, void **mhandle) { return ndFail(); }
static ncclResult_t ndRegMrDmaBuf(void *comm, void *data, size_t size, int type, uint64_t offset, int fd, void **mhandle) {
  return ndFail();
}
static ncclResult_t ndDeregMr(void *comm, void *mhandle) { return ndFail(); }
static ncclResult_t ndIsend(void *comm, void *data, int size, int tag, void *mhandle, void **request) { return ndFail(); }
static ncclResult_t ndIrecv(void *comm, int n, void **data, int *sizes, int *tags, void **mhandles, void **request) {
  return ndFail();
}
static ncclResult_t ndIflush(void *comm, int n, void **data, int *sizes, void **mhandles, void **request) { return ndFail(); }
static ncclResult_t ndTest(void *request, int *done, int *sizes) { return ndFail(); }
static ncclResult_t ndClose(void *comm) { return ndFail(); }
static ncclResult_t ndGetDeviceMr(void *comm, void *mhandle, void **dptr) { return ndFail(); }
static ncclResult_t ndIrecvConsumed(void *comm, int n, void *request) { return ndFail(); }

#define ND_EXPORT_V8(initFn, devicesFn)   \
  FX_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = { \
      .name = ND_NAME,                    \
      .init = initFn,                     \
      .devices = devicesFn,               \
      .getProperties = ndGetProperties,   \
      .listen = ndListen,                 \
      .connect = ndConnect,               \
      .accept = ndAccept,                 \
      .regMr = ndRegMr,                   \
      .regMrDmaBuf = ndRegMrDmaBuf,       \
      .deregMr = ndDeregMr,               \
      .isend = ndIsend,                   \
      .irecv = ndIrecv,                   \
      .iflush = ndIflush,                 \
      .test = ndTest,                     \
      .closeSend = ndClose,               \
      .closeRecv = ndClose,               \
      .closeListen = ndClose,             \
      .getDeviceMr = ndGetDeviceMr,       \
      .irecvConsumed = ndIrecvConsumed,   \
  }

#endif
