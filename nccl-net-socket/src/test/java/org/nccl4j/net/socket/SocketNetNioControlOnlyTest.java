package org.nccl4j.net.socket;

import java.util.Map;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.testkit.NetTestKit;
import org.nccl4j.net.spi.testkit.TestNetContext;

/**
 * The whole test kit on NIO with NCCL's default layout (no data connections): where epoll does
 * not load, the control connection carries every message and stays on its Netty event loop
 * (on epoll the calling threads drive it: {@link SocketNetTest}).
 */
class SocketNetNioControlOnlyTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new SocketNet(NettyTransport.NIO);
    }

    @Override
    protected NetContext context() {
        return new TestNetContext(Map.of("NCCL_SOCKET_IFNAME", "lo"));
    }

    @Override
    protected long maxTransferSize() {
        return 64 * MIB;
    }
}
