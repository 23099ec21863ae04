package org.nccl4j.net.spi;

/** An endpoint of a network plugin; opaque to nccl4j. */
public interface Comm {
}
