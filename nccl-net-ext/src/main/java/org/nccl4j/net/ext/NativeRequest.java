package org.nccl4j.net.ext;

import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.Request;

/**
 * A request a plugin returned. Its completion is polled in posting order on its comm; a result
 * seen while polling on behalf of a newer request is kept until this one is tested.
 */
final class NativeRequest implements Request {
    final NativeComm comm;
    /** The registration it reads or writes through: not deregistered while this is in flight. */
    final NativeMemoryHandle handle;
    final MemorySegment ptr;
    /** Bytes posted (for a receive, the capacity). */
    final long posted;
    final String op;

    boolean done;
    long size;
    NetException failure;
    boolean released;

    NativeRequest(NativeComm comm, NativeMemoryHandle handle, MemorySegment ptr, long posted, String op) {
        this.comm = comm;
        this.handle = handle;
        this.ptr = ptr;
        this.posted = posted;
        this.op = op;
    }

    @Override
    public String toString() {
        return comm.plugin.name + " " + op + " of " + posted + " bytes (0x" + Long.toHexString(ptr.address()) + ")";
    }
}
