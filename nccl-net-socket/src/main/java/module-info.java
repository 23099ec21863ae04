/**
 * NCCL's {@code Socket} network on Netty: TCP over the interfaces NCCL would choose, epoll
 * where the native transport loads, NIO otherwise. Found by nccl4j through
 * {@link org.nccl4j.net.spi.NetProvider}.
 */
module org.nccl4j.net.socket {
    requires org.nccl4j.net.spi;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;

    exports org.nccl4j.net.socket;

    provides org.nccl4j.net.spi.NetProvider with org.nccl4j.net.socket.SocketNetProvider;
}
