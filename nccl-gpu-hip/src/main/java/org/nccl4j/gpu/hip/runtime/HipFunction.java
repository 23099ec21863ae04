package org.nccl4j.gpu.hip.runtime;

import static org.nccl4j.gpu.hip.runtime.CType.ATTRIBUTE;
import static org.nccl4j.gpu.hip.runtime.CType.CHAR_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.CONST_CHAR_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.CONST_VOID_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.DEVICE;
import static org.nccl4j.gpu.hip.runtime.CType.DEVICEPTR;
import static org.nccl4j.gpu.hip.runtime.CType.ERROR;
import static org.nccl4j.gpu.hip.runtime.CType.EVENT;
import static org.nccl4j.gpu.hip.runtime.CType.EVENT_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.FLOAT_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.FUNCTION;
import static org.nccl4j.gpu.hip.runtime.CType.FUNCTION_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.INT;
import static org.nccl4j.gpu.hip.runtime.CType.INT_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.IPC_HANDLE;
import static org.nccl4j.gpu.hip.runtime.CType.IPC_HANDLE_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.MEMCPY_KIND;
import static org.nccl4j.gpu.hip.runtime.CType.MODULE;
import static org.nccl4j.gpu.hip.runtime.CType.MODULE_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.POINTER_ATTRIBUTE_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.SIZE;
import static org.nccl4j.gpu.hip.runtime.CType.SIZE_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.STREAM;
import static org.nccl4j.gpu.hip.runtime.CType.STREAM_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.UCHAR;
import static org.nccl4j.gpu.hip.runtime.CType.UINT;
import static org.nccl4j.gpu.hip.runtime.CType.VOID_PTR;
import static org.nccl4j.gpu.hip.runtime.CType.VOID_PTR_PTR;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every HIP runtime function nccl4j binds, with its prototype as ROCm's
 * {@code hip_runtime_api.h} declares it: what the CUDA backend's driver calls do, in HIP's
 * names (device queries, memory, pinned host memory, copies, streams, events, IPC handles,
 * modules and launches). {@code HipFunctionHeaderTest} compiles each prototype against the
 * installed headers, so a descriptor that disagrees with them fails the build.
 */
public enum HipFunction {
    hipInit(ERROR, UINT),
    hipDriverGetVersion(ERROR, INT_PTR),
    hipRuntimeGetVersion(ERROR, INT_PTR),
    hipGetDeviceCount(ERROR, INT_PTR),
    hipGetErrorName(CONST_CHAR_PTR, ERROR),
    hipGetErrorString(CONST_CHAR_PTR, ERROR),
    hipDeviceGetPCIBusId(ERROR, CHAR_PTR, INT, INT),
    hipDeviceGetName(ERROR, CHAR_PTR, INT, DEVICE),
    hipDeviceTotalMem(ERROR, SIZE_PTR, DEVICE),
    hipDeviceGetAttribute(ERROR, INT_PTR, ATTRIBUTE, INT),
    hipSetDevice(ERROR, INT),
    hipMalloc(ERROR, VOID_PTR_PTR, SIZE),
    hipFree(ERROR, VOID_PTR),
    hipHostMalloc(ERROR, VOID_PTR_PTR, SIZE, UINT),
    hipHostFree(ERROR, VOID_PTR),
    hipHostRegister(ERROR, VOID_PTR, SIZE, UINT),
    hipHostUnregister(ERROR, VOID_PTR),
    hipHostGetDevicePointer(ERROR, VOID_PTR_PTR, VOID_PTR, UINT),
    hipMemcpy(ERROR, VOID_PTR, CONST_VOID_PTR, SIZE, MEMCPY_KIND),
    hipMemcpyAsync(ERROR, VOID_PTR, CONST_VOID_PTR, SIZE, MEMCPY_KIND, STREAM),
    hipMemsetD8Async(ERROR, DEVICEPTR, UCHAR, SIZE, STREAM),
    hipDrvPointerGetAttributes(ERROR, UINT, POINTER_ATTRIBUTE_PTR, VOID_PTR_PTR, DEVICEPTR),
    hipStreamCreateWithFlags(ERROR, STREAM_PTR, UINT),
    hipStreamQuery(ERROR, STREAM),
    hipStreamSynchronize(ERROR, STREAM),
    hipStreamDestroy(ERROR, STREAM),
    hipStreamWaitEvent(ERROR, STREAM, EVENT, UINT),
    hipEventCreateWithFlags(ERROR, EVENT_PTR, UINT),
    hipEventRecord(ERROR, EVENT, STREAM),
    hipEventQuery(ERROR, EVENT),
    hipEventSynchronize(ERROR, EVENT),
    hipEventElapsedTime(ERROR, FLOAT_PTR, EVENT, EVENT),
    hipEventDestroy(ERROR, EVENT),
    hipIpcGetMemHandle(ERROR, IPC_HANDLE_PTR, VOID_PTR),
    hipIpcOpenMemHandle(ERROR, VOID_PTR_PTR, IPC_HANDLE, UINT),
    hipIpcCloseMemHandle(ERROR, VOID_PTR),
    hipModuleLoadData(ERROR, MODULE_PTR, CONST_VOID_PTR),
    hipModuleGetFunction(ERROR, FUNCTION_PTR, MODULE, CONST_CHAR_PTR),
    hipModuleLaunchKernel(ERROR, FUNCTION, UINT, UINT, UINT, UINT, UINT, UINT, UINT, STREAM, VOID_PTR_PTR,
            VOID_PTR_PTR),
    hipModuleUnload(ERROR, MODULE),
    hipDeviceCanAccessPeer(ERROR, INT_PTR, INT, INT),
    hipDeviceEnablePeerAccess(ERROR, INT, UINT);

    private final CType returns;
    private final List<CType> params;

    HipFunction(CType returns, CType... params) {
        this.returns = returns;
        this.params = List.of(params);
    }

    /** @return the return type */
    public CType returns() {
        return returns;
    }

    /** @return the parameter types, in order */
    public List<CType> params() {
        return params;
    }

    /** @return the downcall's descriptor */
    public FunctionDescriptor descriptor() {
        return FunctionDescriptor.of(returns.layout(), params.stream().map(CType::layout).toArray(MemoryLayout[]::new));
    }

    /** @return the C declaration of a pointer to this function, e.g. {@code hipError_t (*)(int*)} */
    public String pointerType() {
        return returns.spelling() + " (*)(" + params.stream().map(CType::spelling).collect(Collectors.joining(", "))
                + ")";
    }

    @Override
    public String toString() {
        return name() + Arrays.toString(params.stream().map(CType::spelling).toArray());
    }
}
