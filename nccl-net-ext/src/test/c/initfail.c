/*
 * nccl4j test fixture: exports ncclNetPlugin_v8 whose init logs a WARN through the logger it
 * receives and fails with ncclInternalError. Nothing else may be called; every other entry
 * point fails too.
 */
#define ND_NAME "InitFail"
#define ND_WHY "called although init failed"
#include "fixture_nodata.h"

static ncclResult_t ifInit(ncclDebugLogger_t logFunction) {
  ndLogger = logFunction;
  if (ndLogger != NULL)
    ndLogger(NCCL_LOG_WARN, NCCL_NET, __FILE__, __LINE__, "NET/InitFail : init failed on purpose (test fixture, code %d)",
             (int)ncclInternalError);
  return ncclInternalError;
}

ND_EXPORT_V8(ifInit, ndDevices);
