package org.nccl4j.gpu.hip.codeobject;

import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.kernel.KernelImage;

/**
 * The kernels this module ships: {@code org/nccl4j/gpu/hip/kernels.hipfb}, built by hipcc during
 * the Maven build and read from this module (class path or module path alike).
 */
public final class CodeObjectResource {
    /** The resource's name in the jar. */
    public static final String NAME = "org/nccl4j/gpu/hip/kernels.hipfb";
    /** Why the kernels are missing when the build skipped them. */
    public static final String MISSING = "built without HIP kernels (-Dnccl4j.hip.skip)";
    private static final KernelImage IMAGE = new KernelImage(NAME, MISSING,
            "build nccl-gpu-hip with hipcc on the PATH (Debian: apt-get install hipcc libamdhip64-dev), without"
                    + " -Dnccl4j.hip.skip=true",
            () -> CodeObjectResource.class.getModule().getResourceAsStream(NAME));

    private CodeObjectResource() {
    }

    /** @return whether the jar has the kernels (not when built with {@code -Dnccl4j.hip.skip=true}) */
    public static boolean present() {
        return IMAGE.present();
    }

    /**
     * @return the bundle's bytes, for {@code hipModuleLoadData}
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if the jar has no kernels
     */
    public static byte[] bytes() {
        return IMAGE.bytes();
    }

    /** @return the shipped bundle, parsed */
    public static OffloadBundle read() {
        return OffloadBundle.parse(bytes());
    }
}
