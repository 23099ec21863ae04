package org.nccl4j.net.spi;

/** The sending end of a connection, from {@link Net#connect}; opaque to nccl4j. */
public interface SendComm extends Comm {
}
