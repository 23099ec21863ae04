package org.nccl4j.net.ib;

import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;

/**
 * Whether the {@code IB} net can be used on this machine, in the style of Netty's {@code Epoll}:
 * one probe, its verdict kept for the life of the process.
 *
 * <p>The probe is {@link IbNet#init} with parameters from {@code -Dnccl.*} system properties and
 * the environment ({@link NetContext#ofEnvironment}) and no logging; the devices it opens are
 * closed again. Its cause, when there is one, is the {@link NetException} that {@code init}
 * threw, whose message says which of these it was: {@code NCCL_IB_DISABLE} is set, libibverbs is
 * not installed, the library lists no device, or no port is active, InfiniBand or RoCE and
 * allowed by {@code NCCL_IB_HCA}.
 *
 * <p>nccl4j itself does not consult this class: initNet calls {@link IbNet#init} with the
 * communicator's parameters every time. It is for applications and diagnostics.
 */
public final class IbVerbs {
    private IbVerbs() {
    }

    private static final class Probe {
        static final Throwable CAUSE = probe(NetContext.ofEnvironment((level, subsystem, message) -> { }));
    }

    /**
     * Runs a fresh probe.
     *
     * @param context the parameters and logger to use
     * @return {@code null} if the IB net initialises with at least one device, else why not
     */
    static NetException probe(NetContext context) {
        IbNet net = new IbNet();
        try {
            net.init(context);
            return net.devices() > 0 ? null
                    : new NetException(NetException.Kind.SYSTEM, "no active IB/RoCE port found");
        } catch (NetException e) {
            return e;
        } finally {
            net.shutdown();
        }
    }

    /** @return whether the IB net can be used here */
    public static boolean isAvailable() {
        return Probe.CAUSE == null;
    }

    /** @return why the IB net cannot be used here, or {@code null} if it can */
    public static Throwable unavailabilityCause() {
        return Probe.CAUSE;
    }

    /**
     * @throws UnsatisfiedLinkError with {@link #unavailabilityCause()} as its cause, if the IB net
     *     cannot be used here
     */
    public static void ensureAvailability() {
        Throwable cause = Probe.CAUSE;
        if (cause != null) {
            throw (UnsatisfiedLinkError) new UnsatisfiedLinkError(
                    "the IB net (libibverbs) cannot be used: " + cause.getMessage()).initCause(cause);
        }
    }
}
