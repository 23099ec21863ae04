package org.nccl4j.net.spi;

/** An operation in flight, from {@link Net#isend}, {@link Net#irecv} or {@link Net#iflush}; opaque to nccl4j. */
public interface Request {
}
