/*
 * nccl4j test fixture: exports ncclNetPlugin_v8 whose init logs a WARN through the logger it
 * receives and fails with ncclInternalError. Nothing else may be called; every other entry
 * point fails too.
 */
#include "fixture_abi.h"

static ncclDebugLogger_t logger;

static ncclResult_t ifInit(ncclDebugLogger_t logFunction) {
  logger = logFunction;
  if (logger != NULL)
    logger(NCCL_LOG_WARN, NCCL_NET, __FILE__, __LINE__, "NET/InitFail : init failed on purpose (test fixture, code %d)",
           (int)ncclInternalError);
  return ncclInternalError;
}

static ncclResult_t ifFail(void) {
  if (logger != NULL)
    logger(NCCL_LOG_WARN, NCCL_NET, __FILE__, __LINE__, "NET/InitFail : called although init failed");
  return ncclInternalError;
}

static ncclResult_t ifDevices(int *ndev) { return ifFail(); }
static ncclResult_t ifGetProperties(int dev, ncclNetProperties_v8_t *props) { return ifFail(); }
static ncclResult_t ifListen(int dev, void *handle, void **listenComm) { return ifFail(); }
static ncclResult_t ifConnect(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v8_t **devComm) { return ifFail(); }
static ncclResult_t ifAccept(void *listenComm, void **recvComm, ncclNetDeviceHandle_v8_t **devComm) { return ifFail(); }
static ncclResult_t ifRegMr(void *comm, void *data, size_t size, int type, void **mhandle) { return ifFail(); }
static ncclResult_t ifRegMrDmaBuf(void *comm, void *data, size_t size, int type, uint64_t offset, int fd, void **mhandle) {
  return ifFail();
}
static ncclResult_t ifDeregMr(void *comm, void *mhandle) { return ifFail(); }
static ncclResult_t ifIsend(void *comm, void *data, int size, int tag, void *mhandle, void **request) { return ifFail(); }
static ncclResult_t ifIrecv(void *comm, int n, void **data, int *sizes, int *tags, void **mhandles, void **request) {
  return ifFail();
}
static ncclResult_t ifIflush(void *comm, int n, void **data, int *sizes, void **mhandles, void **request) { return ifFail(); }
static ncclResult_t ifTest(void *request, int *done, int *sizes) { return ifFail(); }
static ncclResult_t ifClose(void *comm) { return ifFail(); }
static ncclResult_t ifGetDeviceMr(void *comm, void *mhandle, void **dptr) { return ifFail(); }
static ncclResult_t ifIrecvConsumed(void *comm, int n, void *request) { return ifFail(); }

FX_EXPORT ncclNet_v8_t ncclNetPlugin_v8 = {
    .name = "InitFail",
    .init = ifInit,
    .devices = ifDevices,
    .getProperties = ifGetProperties,
    .listen = ifListen,
    .connect = ifConnect,
    .accept = ifAccept,
    .regMr = ifRegMr,
    .regMrDmaBuf = ifRegMrDmaBuf,
    .deregMr = ifDeregMr,
    .isend = ifIsend,
    .irecv = ifIrecv,
    .iflush = ifIflush,
    .test = ifTest,
    .closeSend = ifClose,
    .closeRecv = ifClose,
    .closeListen = ifClose,
    .getDeviceMr = ifGetDeviceMr,
    .irecvConsumed = ifIrecvConsumed,
};
