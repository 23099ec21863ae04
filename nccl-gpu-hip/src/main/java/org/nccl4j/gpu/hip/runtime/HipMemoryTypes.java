package org.nccl4j.gpu.hip.runtime;

import org.nccl4j.core.device.gpu.GpuPointer;

/**
 * HIP's {@code hipMemoryType} in CUDA's numbering ({@link GpuPointer}'s). ROCm 6 renumbered the
 * enum to CUDA's ({@code hipMemoryTypeUnregistered} 0, Host 1, Device 2, Managed 3, then Array 10
 * and Unified 11); ROCm 5 counted from Host 0 (Device 1, Array 2, Unified 3) and had no
 * "unregistered" (it refuses such a pointer instead). Which numbering applies is the runtime's
 * major version.
 */
enum HipMemoryTypes {
    /** ROCm 5: Host 0, Device 1, Array 2, Unified 3. */
    ROCM5(new int[] {GpuPointer.HOST, GpuPointer.DEVICE, GpuPointer.ARRAY, GpuPointer.UNIFIED}),
    /** ROCm 6 and later: Unregistered 0, Host 1, Device 2, Managed 3 (CUDA's own numbering there), Array 10, Unified 11. */
    ROCM6(rocm6());

    private final int[] cuda;

    HipMemoryTypes(int[] cuda) {
        this.cuda = cuda;
    }

    /**
     * @param hipVersion {@code hipRuntimeGetVersion}'s {@code HIP_VERSION}
     * @return the numbering that runtime answers in
     */
    static HipMemoryTypes of(int hipVersion) {
        return hipVersion / 10_000_000 >= 6 ? ROCM6 : ROCM5;
    }

    /**
     * @param hipType a {@code hipMemoryType} value of this numbering
     * @return CUDA's memory type ({@link GpuPointer}), 0 for one it has no name for
     */
    int toCuda(int hipType) {
        return hipType >= 0 && hipType < cuda.length ? cuda[hipType] : 0;
    }

    private static int[] rocm6() {
        int[] t = new int[12];
        t[1] = GpuPointer.HOST;
        t[2] = GpuPointer.DEVICE;
        t[3] = GpuPointer.DEVICE; // managed memory: CUDA reports it as device memory with IS_MANAGED set
        t[10] = GpuPointer.ARRAY;
        t[11] = GpuPointer.UNIFIED;
        return t;
    }
}
