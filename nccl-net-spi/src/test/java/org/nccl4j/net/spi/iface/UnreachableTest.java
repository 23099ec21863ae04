package org.nccl4j.net.spi.iface;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

/** Which connect failures are tried again: an unreachable host or network, not a refused or timed-out connection. */
class UnreachableTest {
    @Test
    void onlyUnreachableHostsAndNetworksAreTriedAgain() {
        assertTrue(Unreachable.is(new NoRouteToHostException("No route to host")));
        assertTrue(Unreachable.is(new SocketException("Network is unreachable")));
        assertFalse(Unreachable.is(new ConnectException("Connection refused")));
        assertFalse(Unreachable.is(new ConnectException("Network is unreachable: but said as a refusal")));
        assertFalse(Unreachable.is(new SocketTimeoutException("connect timed out")));
        assertFalse(Unreachable.is(new SocketException("Connection reset")));
        assertFalse(Unreachable.is(new IOException("Broken pipe")));
        assertFalse(Unreachable.is(null));
    }
}
