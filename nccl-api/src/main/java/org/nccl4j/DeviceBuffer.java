package org.nccl4j;

import java.lang.foreign.MemorySegment;

/**
 * Memory on a communicator's device (GPU memory on a CUDA or HIP communicator), passed to the
 * collectives as NCCL's {@code void*} device buffers are. Java never dereferences it: data moves
 * in and out through {@link #copyFrom} and {@link #copyTo}, or stays on the device between
 * collectives and the user's own kernels.
 *
 * <p>Get one from {@link Communicator#allocate(long)} (owned: {@link #close()} frees it) or wrap
 * memory another library allocated with {@link Communicator#wrap(long, long)} (JavaCPP, DJL,
 * PyTorch's {@code data_ptr()}): nccl4j then never frees it.
 */
public interface DeviceBuffer extends AutoCloseable {
    /** @return the device the memory is on */
    Device device();

    /** @return the device address of the first byte */
    long address();

    /** @return the size in bytes */
    long byteSize();

    /**
     * @param offset first byte, from 0 to {@link #byteSize()}
     * @param bytes  length, at most {@code byteSize() - offset}
     * @return a view of part of this buffer (never owning)
     * @throws NcclException INVALID_ARGUMENT for a range outside the buffer
     */
    DeviceBuffer slice(long offset, long bytes);

    /**
     * Copies host memory into the start of this buffer and waits for the copy.
     *
     * @param src the bytes, at most {@link #byteSize()}
     * @throws NcclException INVALID_ARGUMENT if {@code src} is larger than this buffer
     */
    void copyFrom(MemorySegment src);

    /**
     * Copies the start of this buffer into host memory and waits for the copy.
     *
     * @param dst where to, at most {@link #byteSize()} bytes
     * @throws NcclException INVALID_ARGUMENT if {@code dst} is larger than this buffer
     */
    void copyTo(MemorySegment dst);

    /** Frees the memory if this buffer owns it (not a slice or wrapped memory); idempotent. */
    @Override
    void close();
}
