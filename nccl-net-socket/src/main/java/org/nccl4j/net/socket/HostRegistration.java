package org.nccl4j.net.socket;

import org.nccl4j.net.spi.MemoryHandle;

/** The registration of host memory: the Socket net needs none (NCCL returns a NULL handle), so it is one shared token. */
enum HostRegistration implements MemoryHandle {
    /** The only registration. */
    INSTANCE
}
