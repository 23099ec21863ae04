package org.nccl4j.net.socket;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * Which Netty transport carries the sockets: the native epoll transport where it loads (fewer
 * copies and system calls, no selector wake-up garbage), the JDK's NIO otherwise.
 */
enum NettyTransport {
    /** Netty's native Linux epoll transport. */
    EPOLL,
    /** The JDK's NIO selector transport. */
    NIO;

    /** @return epoll if its native library loads here, else NIO */
    static NettyTransport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** @return why epoll is not used, or {@code null} if it is available */
    static String epollUnavailableReason() {
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? null : cause.toString();
    }

    IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    Class<? extends ServerChannel> serverChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** @return the name used in log lines */
    String displayName() {
        return this == EPOLL ? "epoll" : "NIO";
    }
}
