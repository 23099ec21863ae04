package org.nccl4j.core.device.gpu.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceTransport;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A rank's connection memory, one {@link ConnRegion} per transport its peers use (NCCL's
 * {@code selectTransport}, decided by nccl-core): device memory for P2P peers, a registered
 * {@code /dev/shm} segment for SHM peers. Space is reserved per peer first, the regions are
 * allocated at once, and a blob of both descriptors travels over the bootstrap.
 */
final class ConnMemory implements AutoCloseable {
    /** Both regions' descriptors, P2P first, zeros for an absent one. */
    static final int DESCRIPTORS_BYTES = 2 * ConnRegion.DESCRIPTOR_BYTES;

    private final DeviceCommContext comm;
    private final long[] sizes = new long[2];
    private final ConnRegion[] regions = new ConnRegion[2];
    /** Peers' regions mapped so far: their bases in this rank's context. */
    private final Map<Integer, Long> mapped = new HashMap<>();

    /** @param comm the communicator being built */
    ConnMemory(DeviceCommContext comm) {
        this.comm = comm;
    }

    /**
     * @param peer another rank
     * @return whether it is reached through the network (its connections are then {@link NetConns}', not here)
     */
    boolean net(int peer) {
        return comm.transport(peer) == DeviceTransport.NET;
    }

    /**
     * @param peer another rank
     * @return the index of the region holding its connections (P2P or SHM)
     */
    int kindOf(int peer) {
        DeviceTransport t = comm.transport(peer);
        if (t == DeviceTransport.NET) {
            throw new IllegalStateException("rank " + peer + " is reached through the network: NetConns holds its connections");
        }
        return t == DeviceTransport.P2P ? 0 : 1;
    }

    /** @return this rank */
    int rank() {
        return comm.rank();
    }

    /**
     * @param peer another rank
     * @return how this rank and that one reach each other, in NCCL's words for the connection log line
     */
    String via(int peer) {
        return net(peer) ? "NET" : kindOf(peer) == 1 ? "direct shared memory"
                : (comm.inThisProcess(peer) ? "P2P/direct pointer" : "P2P/IPC") + (comm.p2pRead(peer) ? "/read" : "");
    }

    /**
     * @param peer  the peer the bytes serve
     * @param bytes how much (FIFOs: a multiple of {@link ConnRegion#FIFO_ALIGN})
     * @return the offset in the region of the peer's transport
     */
    long reserve(int peer, long bytes) {
        int k = kindOf(peer);
        long at = sizes[k];
        sizes[k] += bytes;
        return at;
    }

    /**
     * Allocates the regions that have space reserved, zeroed.
     *
     * @param ctx this rank's context
     */
    void allocate(GpuRuntime ctx) {
        try {
            if (sizes[0] > 0) {
                regions[0] = DeviceConnRegion.allocate(ctx, sizes[0]);
            }
            if (sizes[1] > 0) {
                regions[1] = ShmConnRegion.allocate(ctx, comm, sizes[1]);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** @param out where both descriptors go, {@link #DESCRIPTORS_BYTES} of them */
    void describe(ByteBuffer out) {
        boolean ipc = DeviceConnRegion.ipcNeeded(comm);
        for (ConnRegion r : regions) {
            if (r == null) {
                out.put(new byte[ConnRegion.DESCRIPTOR_BYTES]);
            } else {
                r.describe(out, ipc);
            }
        }
    }

    /**
     * @param peer a rank this one has connections with
     * @return the base, in this rank's context, of this rank's region holding them
     */
    long base(int peer) {
        return regions[kindOf(peer)].base();
    }

    /**
     * @param peer        the peer
     * @param descriptors its blob, positioned at its two descriptors (left unchanged)
     * @param contexts    this process's contexts by ordinal, for peer access
     * @return the base, in this rank's context, of the peer's region holding its connections with this rank
     */
    long map(int peer, ByteBuffer descriptors, IntFunction<GpuRuntime> contexts) {
        Long known = mapped.get(peer);
        if (known != null) {
            return known;
        }
        int k = kindOf(peer);
        ByteBuffer d = descriptors.duplicate().position(descriptors.position() + k * ConnRegion.DESCRIPTOR_BYTES);
        long base = regions[k].map(comm, peer, d, contexts);
        mapped.put(peer, base);
        return base;
    }

    /** Waits until every rank has mapped its peers' regions (a bootstrap barrier), then lets names go. */
    void peersMapped() {
        comm.allGather(new byte[1]);
        for (ConnRegion r : regions) {
            if (r != null) {
                r.peersMapped();
            }
        }
    }

    @Override
    public void close() {
        for (int k = 0; k < regions.length; k++) {
            if (regions[k] != null) {
                regions[k].close();
                regions[k] = null;
            }
        }
    }
}
