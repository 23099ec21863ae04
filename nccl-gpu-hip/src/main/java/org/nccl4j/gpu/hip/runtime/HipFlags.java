package org.nccl4j.gpu.hip.runtime;

/**
 * The values of HIP's flags, enums and error codes that {@link HipContext} passes or tests, as
 * {@code hip_runtime_api.h} and {@code driver_types.h} define them ({@code HipFlagsHeaderTest}
 * checks each against the installed headers).
 */
final class HipFlags {
    /** {@code hipErrorInvalidValue}. */
    static final int ERROR_INVALID_VALUE = 1;
    /** {@code hipErrorNotReady}: a stream or event query's "not yet". */
    static final int ERROR_NOT_READY = 600;
    /** {@code hipErrorPeerAccessAlreadyEnabled}. */
    static final int ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;

    /** {@code hipMemcpyHostToDevice}. */
    static final int MEMCPY_HOST_TO_DEVICE = 1;
    /** {@code hipMemcpyDeviceToHost}. */
    static final int MEMCPY_DEVICE_TO_HOST = 2;
    /** {@code hipMemcpyDeviceToDevice}. */
    static final int MEMCPY_DEVICE_TO_DEVICE = 3;

    /** {@code hipHostMallocPortable}. */
    static final int HOST_MALLOC_PORTABLE = 0x1;
    /** {@code hipHostMallocMapped}. */
    static final int HOST_MALLOC_MAPPED = 0x2;
    /** {@code hipHostRegisterPortable}. */
    static final int HOST_REGISTER_PORTABLE = 0x1;
    /** {@code hipHostRegisterMapped}. */
    static final int HOST_REGISTER_MAPPED = 0x2;

    /** {@code hipStreamNonBlocking}. */
    static final int STREAM_NON_BLOCKING = 0x1;
    /** {@code hipEventDefault}. */
    static final int EVENT_DEFAULT = 0x0;
    /** {@code hipEventDisableTiming}. */
    static final int EVENT_DISABLE_TIMING = 0x2;
    /** {@code hipIpcMemLazyEnablePeerAccess}. */
    static final int IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0;

    /** {@code HIP_POINTER_ATTRIBUTE_MEMORY_TYPE}. */
    static final int POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
    /** {@code HIP_POINTER_ATTRIBUTE_IS_MANAGED}. */
    static final int POINTER_ATTRIBUTE_IS_MANAGED = 8;
    /** {@code HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL}. */
    static final int POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

    private HipFlags() {
    }
}
