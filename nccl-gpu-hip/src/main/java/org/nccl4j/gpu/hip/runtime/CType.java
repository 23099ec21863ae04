package org.nccl4j.gpu.hip.runtime;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;

/**
 * The C types of the HIP functions nccl4j binds, as {@code hip_runtime_api.h} spells them, and
 * their layouts on x86-64 Linux (LP64): enums and {@code hipError_t} are {@code int}, handles
 * ({@code hipStream_t}, ...) are pointers, {@code hipIpcMemHandle_t} is a 64-byte struct passed by value.
 */
public enum CType {
    ERROR("hipError_t", ValueLayout.JAVA_INT),
    INT("int", ValueLayout.JAVA_INT),
    UINT("unsigned int", ValueLayout.JAVA_INT),
    DEVICE("hipDevice_t", ValueLayout.JAVA_INT),
    ATTRIBUTE("hipDeviceAttribute_t", ValueLayout.JAVA_INT),
    MEMCPY_KIND("hipMemcpyKind", ValueLayout.JAVA_INT),
    UCHAR("unsigned char", ValueLayout.JAVA_BYTE),
    SIZE("size_t", ValueLayout.JAVA_LONG),
    VOID_PTR("void*", ValueLayout.ADDRESS),
    CONST_VOID_PTR("const void*", ValueLayout.ADDRESS),
    VOID_PTR_PTR("void**", ValueLayout.ADDRESS),
    DEVICEPTR("hipDeviceptr_t", ValueLayout.ADDRESS),
    INT_PTR("int*", ValueLayout.ADDRESS),
    FLOAT_PTR("float*", ValueLayout.ADDRESS),
    POINTER_ATTRIBUTE_PTR("hipPointer_attribute*", ValueLayout.ADDRESS),
    SIZE_PTR("size_t*", ValueLayout.ADDRESS),
    CHAR_PTR("char*", ValueLayout.ADDRESS),
    CONST_CHAR_PTR("const char*", ValueLayout.ADDRESS),
    STREAM("hipStream_t", ValueLayout.ADDRESS),
    STREAM_PTR("hipStream_t*", ValueLayout.ADDRESS),
    EVENT("hipEvent_t", ValueLayout.ADDRESS),
    EVENT_PTR("hipEvent_t*", ValueLayout.ADDRESS),
    MODULE("hipModule_t", ValueLayout.ADDRESS),
    MODULE_PTR("hipModule_t*", ValueLayout.ADDRESS),
    FUNCTION("hipFunction_t", ValueLayout.ADDRESS),
    FUNCTION_PTR("hipFunction_t*", ValueLayout.ADDRESS),
    IPC_HANDLE("hipIpcMemHandle_t", MemoryLayout.structLayout(MemoryLayout.sequenceLayout(Sizes.IPC_HANDLE,
            ValueLayout.JAVA_BYTE))),
    IPC_HANDLE_PTR("hipIpcMemHandle_t*", ValueLayout.ADDRESS);

    /** Bytes of {@code hipIpcMemHandle_t} ({@code char reserved[64]}). */
    public static final int IPC_HANDLE_BYTES = Sizes.IPC_HANDLE;

    /** Sizes the constants' layouts use (an enum's own statics are not yet set when its constants are made). */
    private static final class Sizes {
        static final int IPC_HANDLE = 64;
    }

    private final String spelling;
    private final MemoryLayout layout;

    CType(String spelling, MemoryLayout layout) {
        this.spelling = spelling;
        this.layout = layout;
    }

    /** @return the type as the header spells it */
    public String spelling() {
        return spelling;
    }

    /** @return its layout in a downcall */
    public MemoryLayout layout() {
        return layout;
    }
}
