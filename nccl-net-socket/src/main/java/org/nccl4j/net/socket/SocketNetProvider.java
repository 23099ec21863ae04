package org.nccl4j.net.socket;

import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetProvider;

/** Registers NCCL's {@code Socket} network with nccl4j's initNet: name {@code "Socket"}, tried after IB. */
public final class SocketNetProvider implements NetProvider {
    /** The network's name, matched by {@code NCCL_NET}. */
    public static final String NAME = "Socket";
    /** Where initNet tries it: after native plugins (100) and IB (200). */
    public static final int PRIORITY = 300;

    /** Creates the provider; touches neither Netty nor the network. */
    public SocketNetProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Net create() {
        return new SocketNet();
    }
}
