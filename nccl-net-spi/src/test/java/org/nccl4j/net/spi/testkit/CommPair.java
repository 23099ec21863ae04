package org.nccl4j.net.spi.testkit;

import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.SendComm;

/**
 * Both ends of one connection, as the test kit opens them (the listening endpoint is already
 * closed, as nccl4j closes it right after {@code accept}).
 *
 * @param send the sending end
 * @param recv the receiving end
 */
public record CommPair(SendComm send, RecvComm recv) {
}
