package org.nccl4j.core.transport;

import java.util.List;

/** The transports in NCCL's order of preference: in-process (P2P), SHM, NET. */
public final class Transports {
    private Transports() {
    }

    /** @return the candidates, first choice first */
    public static List<Transport> all() {
        return List.of(new InProcessTransport(), new ShmTransport(), new NetTransport());
    }
}
