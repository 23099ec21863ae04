package org.nccl4j.net.ib;

import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetProvider;

/**
 * Registers NCCL's {@code IB} net with nccl4j's initNet: tried after native plugins (100) and
 * before {@code Socket} (300). Creating it touches nothing native; libibverbs is loaded by
 * {@link IbNet#init}.
 */
public final class IbNetProvider implements NetProvider {
    /** The rank initNet tries this provider at. */
    public static final int PRIORITY = 200;

    /** For {@link java.util.ServiceLoader}. */
    public IbNetProvider() {
    }

    @Override
    public String name() {
        return IbNet.NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Net create() {
        return new IbNet();
    }
}
