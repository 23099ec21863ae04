package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;

/**
 * Lets an {@link InboundStream} choose the buffer each socket read goes into, so a large
 * receive is read straight into the user's memory instead of through a Netty buffer.
 */
final class SinkAllocator extends DefaultMaxMessagesRecvByteBufAllocator {
    private final InboundStream stream;

    SinkAllocator(InboundStream stream) {
        super(16);
        this.stream = stream;
    }

    @Override
    public Handle newHandle() {
        return new MaxMessageHandle() {
            @Override
            public ByteBuf allocate(ByteBufAllocator alloc) {
                return stream.allocate(alloc);
            }

            @Override
            public int guess() {
                return stream.guess();
            }
        };
    }
}
