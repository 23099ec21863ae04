/*
 * nccl4j test fixtures: our own declarations of the native NCCL net plugin ABI (ncclNet v4, v8
 * and v10), written from the layouts in shared/research/netplugin-notes.md (Linux x86-64, LP64),
 * and of the older v2 and v3 that plugins still export beside v4 (NCCL 2.5/2.6's nccl_net.h).
 * Only what the fixtures need; the static assertions pin every size and offset the notes list.
 */
#ifndef NCCL4J_FIXTURE_ABI_H
#define NCCL4J_FIXTURE_ABI_H

#include <stddef.h>
#include <stdint.h>

/* Result codes: a 4-byte enum. */
typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6
} ncclResult_t;

/* Logger levels and the NET subsystem flag. */
typedef enum {
  NCCL_LOG_NONE = 0,
  NCCL_LOG_VERSION = 1,
  NCCL_LOG_WARN = 2,
  NCCL_LOG_INFO = 3,
  NCCL_LOG_ABORT = 4,
  NCCL_LOG_TRACE = 5
} ncclDebugLogLevel;

#define NCCL_INIT 0x1UL
#define NCCL_NET 0x10UL

typedef void (*ncclDebugLogger_t)(ncclDebugLogLevel level, unsigned long flags, const char *file,
                                  int line, const char *fmt, ...);
typedef ncclResult_t (*ncclProfilerCallback_t)(void **eHandle, int type, void *phandle,
                                               int64_t pluginId, void *extData);

#define NCCL_PTR_HOST 0x1
#define NCCL_PTR_CUDA 0x2
#define NCCL_PTR_DMABUF 0x4

#define NCCL_NET_HANDLE_MAXSIZE_V4 64
#define NCCL_NET_HANDLE_MAXSIZE 128
#define NCCL_NET_MAX_REQUESTS 8
#define NCCL_NET_TRAFFIC_CLASS_UNDEF (-1)

typedef enum { NCCL_NET_DEVICE_HOST = 0, NCCL_NET_DEVICE_UNPACK = 1 } ncclNetDeviceType;

/* ---- v4 ---- */

typedef struct {
  char *name;
  char *pciPath;
  uint64_t guid;
  int ptrSupport;
  int speed;
  int port;
  int maxComms;
} ncclNetProperties_v4_t;

/* ---- v4, and the v3 and v2 before it: the same members but for properties and flush ---- */

#define NCCL_NET_V2_V4_HEAD                                      \
  const char *name;                                              \
  ncclResult_t (*init)(ncclDebugLogger_t logFunction);           \
  ncclResult_t (*devices)(int *ndev);
#define NCCL_NET_V2_V4_SETUP_SEND_RECV                                                  \
  ncclResult_t (*listen)(int dev, void *handle, void **listenComm);                     \
  ncclResult_t (*connect)(int dev, void *handle, void **sendComm);                      \
  ncclResult_t (*accept)(void *listenComm, void **recvComm);                            \
  ncclResult_t (*regMr)(void *comm, void *data, int size, int type, void **mhandle);    \
  ncclResult_t (*deregMr)(void *comm, void *mhandle);                                   \
  ncclResult_t (*isend)(void *sendComm, void *data, int size, void *mhandle, void **request); \
  ncclResult_t (*irecv)(void *recvComm, void *data, int size, void *mhandle, void **request);
#define NCCL_NET_V2_V4_TEST_CLOSE                                \
  ncclResult_t (*test)(void *request, int *done, int *size);     \
  ncclResult_t (*closeSend)(void *sendComm);                     \
  ncclResult_t (*closeRecv)(void *recvComm);                     \
  ncclResult_t (*closeListen)(void *listenComm);

typedef struct {
  NCCL_NET_V2_V4_HEAD
  ncclResult_t (*getProperties)(int dev, ncclNetProperties_v4_t *props);
  NCCL_NET_V2_V4_SETUP_SEND_RECV
  ncclResult_t (*iflush)(void *recvComm, void *data, int size, void *mhandle, void **request);
  NCCL_NET_V2_V4_TEST_CLOSE
} ncclNet_v4_t;

/* ---- v3 and v2: exported by old plugins, loaded by neither NCCL 2.10 nor nccl4j ---- */

typedef ncclNetProperties_v4_t ncclNetProperties_v3_t;

typedef struct {
  NCCL_NET_V2_V4_HEAD
  ncclResult_t (*getProperties)(int dev, ncclNetProperties_v3_t *props);
  NCCL_NET_V2_V4_SETUP_SEND_RECV
  ncclResult_t (*flush)(void *recvComm, void *data, int size, void *mhandle); /* blocking, no request */
  NCCL_NET_V2_V4_TEST_CLOSE
} ncclNet_v3_t;

typedef struct {
  NCCL_NET_V2_V4_HEAD
  ncclResult_t (*pciPath)(int dev, char **path);
  ncclResult_t (*ptrSupport)(int dev, int *supportedTypes);
  NCCL_NET_V2_V4_SETUP_SEND_RECV
  ncclResult_t (*flush)(void *recvComm, void *data, int size, void *mhandle);
  NCCL_NET_V2_V4_TEST_CLOSE
} ncclNet_v2_t;

/* ---- shared by v8 and v10 ---- */

typedef struct {
  ncclNetDeviceType netDeviceType;
  int netDeviceVersion;
  void *handle;
  size_t size;
  int needsProxyProgress;
} ncclNetDeviceHandle_v10_t;
typedef ncclNetDeviceHandle_v10_t ncclNetDeviceHandle_v8_t;

/* ---- v8 ---- */

typedef struct {
  char *name;
  char *pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  ncclNetDeviceType netDeviceType;
  int netDeviceVersion;
} ncclNetProperties_v8_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(ncclDebugLogger_t logFunction);
  ncclResult_t (*devices)(int *ndev);
  ncclResult_t (*getProperties)(int dev, ncclNetProperties_v8_t *props);
  ncclResult_t (*listen)(int dev, void *handle, void **listenComm);
  ncclResult_t (*connect)(int dev, void *handle, void **sendComm, ncclNetDeviceHandle_v8_t **sendDevComm);
  ncclResult_t (*accept)(void *listenComm, void **recvComm, ncclNetDeviceHandle_v8_t **recvDevComm);
  ncclResult_t (*regMr)(void *comm, void *data, size_t size, int type, void **mhandle);
  ncclResult_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type, uint64_t offset, int fd,
                              void **mhandle);
  ncclResult_t (*deregMr)(void *comm, void *mhandle);
  ncclResult_t (*isend)(void *sendComm, void *data, int size, int tag, void *mhandle, void **request);
  ncclResult_t (*irecv)(void *recvComm, int n, void **data, int *sizes, int *tags, void **mhandles,
                        void **request);
  ncclResult_t (*iflush)(void *recvComm, int n, void **data, int *sizes, void **mhandles, void **request);
  ncclResult_t (*test)(void *request, int *done, int *sizes);
  ncclResult_t (*closeSend)(void *sendComm);
  ncclResult_t (*closeRecv)(void *recvComm);
  ncclResult_t (*closeListen)(void *listenComm);
  ncclResult_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr_mhandle);
  ncclResult_t (*irecvConsumed)(void *recvComm, int n, void *request);
} ncclNet_v8_t;

/* ---- v10 ---- */

#define NCCL_NET_MAX_DEVS_PER_NIC_V10 4

typedef struct {
  int ndevs;
  int devs[NCCL_NET_MAX_DEVS_PER_NIC_V10];
} ncclNetVDeviceProps_v10_t;

typedef struct {
  int trafficClass;
} ncclNetCommConfig_v10_t;

typedef struct {
  char *name;
  char *pciPath;
  uint64_t guid;
  int ptrSupport;
  int regIsGlobal;
  int forceFlush;
  int speed;
  int port;
  float latency;
  int maxComms;
  int maxRecvs;
  ncclNetDeviceType netDeviceType;
  int netDeviceVersion;
  ncclNetVDeviceProps_v10_t vProps;
  size_t maxP2pBytes;
  size_t maxCollBytes;
} ncclNetProperties_v10_t;

typedef struct {
  const char *name;
  ncclResult_t (*init)(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction);
  ncclResult_t (*devices)(int *ndev);
  ncclResult_t (*getProperties)(int dev, ncclNetProperties_v10_t *props);
  ncclResult_t (*listen)(int dev, void *handle, void **listenComm);
  ncclResult_t (*connect)(int dev, ncclNetCommConfig_v10_t *config, void *handle, void **sendComm,
                          ncclNetDeviceHandle_v10_t **sendDevComm);
  ncclResult_t (*accept)(void *listenComm, void **recvComm, ncclNetDeviceHandle_v10_t **recvDevComm);
  ncclResult_t (*regMr)(void *comm, void *data, size_t size, int type, void **mhandle);
  ncclResult_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type, uint64_t offset, int fd,
                              void **mhandle);
  ncclResult_t (*deregMr)(void *comm, void *mhandle);
  ncclResult_t (*isend)(void *sendComm, void *data, size_t size, int tag, void *mhandle, void *phandle,
                        void **request);
  ncclResult_t (*irecv)(void *recvComm, int n, void **data, size_t *sizes, int *tags, void **mhandles,
                        void **phandles, void **request);
  ncclResult_t (*iflush)(void *recvComm, int n, void **data, int *sizes, void **mhandles, void **request);
  ncclResult_t (*test)(void *request, int *done, int *sizes);
  ncclResult_t (*closeSend)(void *sendComm);
  ncclResult_t (*closeRecv)(void *recvComm);
  ncclResult_t (*closeListen)(void *listenComm);
  ncclResult_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr_mhandle);
  ncclResult_t (*irecvConsumed)(void *recvComm, int n, void *request);
  ncclResult_t (*makeVDevice)(int *d, ncclNetVDeviceProps_v10_t *props);
} ncclNet_v10_t;

/* ---- layout checks (values from the notes) ---- */

_Static_assert(sizeof(ncclResult_t) == 4, "ncclResult_t");
_Static_assert(sizeof(ncclNetDeviceType) == 4, "ncclNetDeviceType");

_Static_assert(sizeof(ncclNetProperties_v4_t) == 40, "props v4");
_Static_assert(offsetof(ncclNetProperties_v4_t, pciPath) == 8, "props v4 pciPath");
_Static_assert(offsetof(ncclNetProperties_v4_t, guid) == 16, "props v4 guid");
_Static_assert(offsetof(ncclNetProperties_v4_t, ptrSupport) == 24, "props v4 ptrSupport");
_Static_assert(offsetof(ncclNetProperties_v4_t, speed) == 28, "props v4 speed");
_Static_assert(offsetof(ncclNetProperties_v4_t, port) == 32, "props v4 port");
_Static_assert(offsetof(ncclNetProperties_v4_t, maxComms) == 36, "props v4 maxComms");
_Static_assert(sizeof(ncclNet_v4_t) == 128, "ncclNet_v4_t");
_Static_assert(offsetof(ncclNet_v4_t, closeListen) == 120, "ncclNet_v4_t closeListen");

_Static_assert(sizeof(ncclNet_v3_t) == 128, "ncclNet_v3_t");
_Static_assert(offsetof(ncclNet_v3_t, flush) == 88, "ncclNet_v3_t flush");
_Static_assert(sizeof(ncclNet_v2_t) == 136, "ncclNet_v2_t");
_Static_assert(offsetof(ncclNet_v2_t, flush) == 96, "ncclNet_v2_t flush");

_Static_assert(sizeof(ncclNetProperties_v8_t) == 64, "props v8");
_Static_assert(offsetof(ncclNetProperties_v8_t, pciPath) == 8, "props v8 pciPath");
_Static_assert(offsetof(ncclNetProperties_v8_t, guid) == 16, "props v8 guid");
_Static_assert(offsetof(ncclNetProperties_v8_t, ptrSupport) == 24, "props v8 ptrSupport");
_Static_assert(offsetof(ncclNetProperties_v8_t, regIsGlobal) == 28, "props v8 regIsGlobal");
_Static_assert(offsetof(ncclNetProperties_v8_t, speed) == 32, "props v8 speed");
_Static_assert(offsetof(ncclNetProperties_v8_t, port) == 36, "props v8 port");
_Static_assert(offsetof(ncclNetProperties_v8_t, latency) == 40, "props v8 latency");
_Static_assert(offsetof(ncclNetProperties_v8_t, maxComms) == 44, "props v8 maxComms");
_Static_assert(offsetof(ncclNetProperties_v8_t, maxRecvs) == 48, "props v8 maxRecvs");
_Static_assert(offsetof(ncclNetProperties_v8_t, netDeviceType) == 52, "props v8 netDeviceType");
_Static_assert(offsetof(ncclNetProperties_v8_t, netDeviceVersion) == 56, "props v8 netDeviceVersion");
_Static_assert(sizeof(ncclNet_v8_t) == 152, "ncclNet_v8_t");
_Static_assert(offsetof(ncclNet_v8_t, regMrDmaBuf) == 64, "ncclNet_v8_t regMrDmaBuf");
_Static_assert(offsetof(ncclNet_v8_t, irecvConsumed) == 144, "ncclNet_v8_t irecvConsumed");

_Static_assert(sizeof(ncclNetDeviceHandle_v10_t) == 32, "device handle");
_Static_assert(sizeof(ncclNetVDeviceProps_v10_t) == 20, "vdevice props");
_Static_assert(sizeof(ncclNetCommConfig_v10_t) == 4, "comm config");

_Static_assert(sizeof(ncclNetProperties_v10_t) == 104, "props v10");
_Static_assert(offsetof(ncclNetProperties_v10_t, pciPath) == 8, "props v10 pciPath");
_Static_assert(offsetof(ncclNetProperties_v10_t, guid) == 16, "props v10 guid");
_Static_assert(offsetof(ncclNetProperties_v10_t, ptrSupport) == 24, "props v10 ptrSupport");
_Static_assert(offsetof(ncclNetProperties_v10_t, regIsGlobal) == 28, "props v10 regIsGlobal");
_Static_assert(offsetof(ncclNetProperties_v10_t, forceFlush) == 32, "props v10 forceFlush");
_Static_assert(offsetof(ncclNetProperties_v10_t, speed) == 36, "props v10 speed");
_Static_assert(offsetof(ncclNetProperties_v10_t, port) == 40, "props v10 port");
_Static_assert(offsetof(ncclNetProperties_v10_t, latency) == 44, "props v10 latency");
_Static_assert(offsetof(ncclNetProperties_v10_t, maxComms) == 48, "props v10 maxComms");
_Static_assert(offsetof(ncclNetProperties_v10_t, maxRecvs) == 52, "props v10 maxRecvs");
_Static_assert(offsetof(ncclNetProperties_v10_t, netDeviceType) == 56, "props v10 netDeviceType");
_Static_assert(offsetof(ncclNetProperties_v10_t, netDeviceVersion) == 60, "props v10 netDeviceVersion");
_Static_assert(offsetof(ncclNetProperties_v10_t, vProps) == 64, "props v10 vProps");
_Static_assert(offsetof(ncclNetProperties_v10_t, maxP2pBytes) == 88, "props v10 maxP2pBytes");
_Static_assert(offsetof(ncclNetProperties_v10_t, maxCollBytes) == 96, "props v10 maxCollBytes");

_Static_assert(sizeof(ncclNet_v10_t) == 160, "ncclNet_v10_t");
_Static_assert(offsetof(ncclNet_v10_t, init) == 8, "v10 init");
_Static_assert(offsetof(ncclNet_v10_t, connect) == 40, "v10 connect");
_Static_assert(offsetof(ncclNet_v10_t, regMr) == 56, "v10 regMr");
_Static_assert(offsetof(ncclNet_v10_t, isend) == 80, "v10 isend");
_Static_assert(offsetof(ncclNet_v10_t, test) == 104, "v10 test");
_Static_assert(offsetof(ncclNet_v10_t, closeListen) == 128, "v10 closeListen");
_Static_assert(offsetof(ncclNet_v10_t, getDeviceMr) == 136, "v10 getDeviceMr");
_Static_assert(offsetof(ncclNet_v10_t, irecvConsumed) == 144, "v10 irecvConsumed");
_Static_assert(offsetof(ncclNet_v10_t, makeVDevice) == 152, "v10 makeVDevice");

/* Marks the symbols a fixture exports (the build uses -fvisibility=hidden). */
#define FX_EXPORT __attribute__((visibility("default")))

#endif
