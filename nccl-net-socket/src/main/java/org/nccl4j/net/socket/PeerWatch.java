package org.nccl4j.net.socket;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.util.function.Consumer;
import org.nccl4j.net.spi.NetException;

/**
 * Watches a sending connection for the peer going away (the receiver never writes, so any
 * input is dropped and end-of-stream means the peer closed), and reports it to whoever owns
 * the connection by then.
 */
final class PeerWatch extends ChannelInboundHandlerAdapter {
    private final String peer;
    private Consumer<NetException> owner;
    private NetException failure;

    /** @param peer the remote address, for error messages */
    PeerWatch(String peer) {
        this.peer = peer;
    }

    /**
     * Sets who is told of a failure; told at once if it already happened.
     *
     * @param newOwner the callback
     */
    synchronized void owner(Consumer<NetException> newOwner) {
        owner = newOwner;
        if (failure != null) {
            newOwner.accept(failure);
        }
    }

    private synchronized void report(NetException e) {
        if (failure == null) {
            failure = e;
            if (owner != null) {
                owner.accept(e);
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ((ByteBuf) msg).release();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        report(new NetException(NetException.Kind.REMOTE, "NET/Socket : connection closed by remote peer " + peer));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        NetException.Kind kind = cause instanceof IOException ? NetException.Kind.REMOTE : NetException.Kind.INTERNAL;
        report(new NetException(kind, "NET/Socket : connection to peer " + peer + " failed : " + cause, cause));
        ctx.close();
    }
}
