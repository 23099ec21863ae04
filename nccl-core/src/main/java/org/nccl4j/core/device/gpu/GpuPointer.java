package org.nccl4j.core.device.gpu;

/**
 * What a GPU runtime knows of an address ({@code cuPointerGetAttributes},
 * {@code hipPointerGetAttributes}), in CUDA's numbering of memory types, onto which a HIP runtime
 * maps its own.
 *
 * @param memoryType {@link #HOST}, {@link #DEVICE}, {@link #ARRAY}, {@link #UNIFIED}, or 0 when the
 *                   runtime does not know the address (plain host memory)
 * @param device     the ordinal of the device the memory belongs to, -1 when unknown to the runtime
 * @param managed    whether it is managed (unified) memory
 */
public record GpuPointer(int memoryType, int device, boolean managed) {
    /** {@code CU_MEMORYTYPE_HOST}: pinned or registered host memory. */
    public static final int HOST = 1;
    /** {@code CU_MEMORYTYPE_DEVICE}. */
    public static final int DEVICE = 2;
    /** {@code CU_MEMORYTYPE_ARRAY}. */
    public static final int ARRAY = 3;
    /** {@code CU_MEMORYTYPE_UNIFIED}. */
    public static final int UNIFIED = 4;

    /** @return whether the runtime knows the address at all */
    public boolean known() {
        return memoryType != 0;
    }
}
