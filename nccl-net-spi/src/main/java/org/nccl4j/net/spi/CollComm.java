package org.nccl4j.net.spi;

/** A collective endpoint spanning a group of ranks, from {@link CollNet#connect}; opaque to nccl4j. */
public interface CollComm {
}
