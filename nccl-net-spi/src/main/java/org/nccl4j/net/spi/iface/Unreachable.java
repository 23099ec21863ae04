package org.nccl4j.net.spi.iface;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;

/**
 * Whether a connect failed because the peer's host cannot be reached just now (no route to it,
 * the network down: a link that flaps), which is worth trying again until the deadline, unlike a
 * refused connection (nothing listens there).
 */
public final class Unreachable {
    private Unreachable() {
    }

    /**
     * @param cause why a connect failed
     * @return whether it is an unreachable host or network
     */
    public static boolean is(Throwable cause) {
        return cause instanceof NoRouteToHostException
                || (cause instanceof SocketException && !(cause instanceof ConnectException) && cause.getMessage() != null
                && cause.getMessage().contains("unreachable"));
    }
}
