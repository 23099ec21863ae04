package org.nccl4j.net.socket;

import java.util.Map;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.testkit.NetTestKit;
import org.nccl4j.net.spi.testkit.TestNetContext;

/**
 * The whole test kit again on Netty's NIO transport (what runs where epoll does not load),
 * with 3 × 1 data connections so pieces wrap around an odd socket count.
 */
class SocketNetNioTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new SocketNet(NettyTransport.NIO);
    }

    @Override
    protected NetContext context() {
        return new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo", "NCCL_SOCKET_NTHREADS", "3",
                "NCCL_NSOCKS_PERTHREAD", "1"));
    }

    @Override
    protected long maxTransferSize() {
        return 64 * MIB;
    }
}
