package org.nccl4j.gpu.cuda.fatbin;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.kernel.KernelImage;

/**
 * The kernels this module ships: {@code org/nccl4j/gpu/cuda/kernels.fatbin}, built by nvcc
 * during the Maven build and read from this module (class path or module path alike).
 */
public final class FatbinResource {
    /** The resource's name in the jar. */
    public static final String NAME = "org/nccl4j/gpu/cuda/kernels.fatbin";
    /** Why the kernels are missing when the build skipped them. */
    public static final String MISSING = "built without CUDA kernels (-Dnccl4j.cuda.skip)";
    private static final KernelImage IMAGE = new KernelImage(NAME, MISSING,
            "build nccl-gpu-cuda with nvcc (CUDA 12.8+) on the PATH, without -Dnccl4j.cuda.skip=true",
            () -> FatbinResource.class.getModule().getResourceAsStream(NAME));

    private FatbinResource() {
    }

    /** @return whether the jar has the kernels (not when built with {@code -Dnccl4j.cuda.skip=true}) */
    public static boolean present() {
        return IMAGE.present();
    }

    /**
     * @return the fatbin's bytes, for {@code cuModuleLoadData}
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if the jar has no kernels
     */
    public static byte[] bytes() {
        return IMAGE.bytes();
    }

    /** @return the shipped fatbin, parsed */
    public static Fatbin read() {
        return Fatbin.parse(bytes());
    }
}
