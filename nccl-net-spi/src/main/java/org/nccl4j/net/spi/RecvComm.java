package org.nccl4j.net.spi;

/** The receiving end of a connection, from {@link Net#accept}; opaque to nccl4j. */
public interface RecvComm extends Comm {
}
