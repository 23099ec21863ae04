package org.nccl4j.net.socket;

import java.util.Map;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.testkit.NetTestKit;
import org.nccl4j.net.spi.testkit.TestNetContext;

/**
 * The whole test kit with messages split over data connections: 2 threads × 2 sockets, so
 * every message above 64 KiB is cut into up to 4 pieces whose placement both ends must agree on.
 */
class SocketNetSplitTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new SocketNet();
    }

    @Override
    protected NetContext context() {
        return new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", "2",
                "NCCL_NSOCKS_PERTHREAD", "2"));
    }

    @Override
    protected long maxTransferSize() {
        return 64 * MIB;
    }
}
