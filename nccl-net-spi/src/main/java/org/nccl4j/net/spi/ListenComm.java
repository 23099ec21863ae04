package org.nccl4j.net.spi;

/** A listening endpoint, from {@link Net#listen}; opaque to nccl4j. */
public interface ListenComm extends Comm {
}
