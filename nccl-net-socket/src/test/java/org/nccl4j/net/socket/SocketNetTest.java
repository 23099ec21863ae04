package org.nccl4j.net.socket;

import java.util.Map;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.testkit.NetTestKit;
import org.nccl4j.net.spi.testkit.TestNetContext;

/**
 * The Socket net against the test kit on loopback, with its default tuning (NCCL's: no data
 * connections, every message on the control connection) and the best transport (epoll here).
 */
class SocketNetTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new SocketNet();
    }

    @Override
    protected NetContext context() {
        return new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo"));
    }
}
