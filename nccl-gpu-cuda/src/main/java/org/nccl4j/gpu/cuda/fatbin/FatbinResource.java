package org.nccl4j.gpu.cuda.fatbin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * The kernels this module ships: {@code org/nccl4j/gpu/cuda/kernels.fatbin}, built by nvcc
 * during the Maven build and read from this module (class path or module path alike).
 */
public final class FatbinResource {
    /** The resource's name in the jar. */
    public static final String NAME = "org/nccl4j/gpu/cuda/kernels.fatbin";
    /** Why the kernels are missing when the build skipped them. */
    public static final String MISSING = "built without CUDA kernels (-Dnccl4j.cuda.skip)";

    private FatbinResource() {
    }

    /** @return whether the jar has the kernels (not when built with {@code -Dnccl4j.cuda.skip=true}) */
    public static boolean present() {
        try (InputStream in = open()) {
            return in != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * @return the fatbin's bytes, for {@code cuModuleLoadData}
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if the jar has no kernels
     */
    public static byte[] bytes() {
        try (InputStream in = open()) {
            if (in == null) {
                throw NcclException.of(Result.INTERNAL_ERROR, "no " + NAME + " in nccl-gpu-cuda: " + MISSING,
                        "build nccl-gpu-cuda with nvcc (CUDA 12.8+) on the PATH, without -Dnccl4j.cuda.skip=true");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + NAME, e);
        }
    }

    /** @return the shipped fatbin, parsed */
    public static Fatbin read() {
        return Fatbin.parse(bytes());
    }

    private static InputStream open() throws IOException {
        return FatbinResource.class.getModule().getResourceAsStream(NAME);
    }
}
