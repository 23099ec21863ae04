package org.nccl4j.core.device.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

/**
 * A GPU backend's kernels, a resource of its jar built by the GPU compiler during the Maven
 * build (nvcc's fatbin, hipcc's offload bundle) and absent when the build skipped it.
 *
 * @param name    the resource's name in the jar
 * @param missing why the kernels are missing when the build skipped them
 * @param hint    how to build them, for the error
 * @param opener  opens the resource; a lambda in the backend's own module, whose packages are not
 *                open to this one ({@code Module.getResourceAsStream} is caller-sensitive)
 */
public record KernelImage(String name, String missing, String hint, Opener opener) {
    /** Opens the resource, {@code null} when absent. */
    @FunctionalInterface
    public interface Opener {
        /** @return the resource's stream, or {@code null} */
        InputStream open() throws IOException;
    }

    /** @return whether the jar has the kernels */
    public boolean present() {
        try (InputStream in = opener.open()) {
            return in != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * @return the kernels' bytes, for the runtime's module load
     * @throws NcclException with {@link Result#INTERNAL_ERROR} if the jar has none
     */
    public byte[] bytes() {
        try (InputStream in = opener.open()) {
            if (in == null) {
                throw NcclException.of(Result.INTERNAL_ERROR, "no " + name + " in the jar: " + missing, hint);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + name, e);
        }
    }
}
