package org.nccl4j.net.spi;

/** A memory registration, from {@link Net#regMr}; opaque to nccl4j. */
public interface MemoryHandle {
}
