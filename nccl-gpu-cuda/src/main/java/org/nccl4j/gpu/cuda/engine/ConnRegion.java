package org.nccl4j.gpu.cuda.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.gpu.cuda.driver.CudaContext;

/**
 * A rank's connection memory: one device allocation holding every FIFO and control word its peers
 * write into, so that one address and one CUDA IPC handle describe it all. A peer in this process
 * uses it directly (same context, or peer access between two GPUs); a peer in another process
 * maps it with {@code cuIpcOpenMemHandle} (NCCL's P2P transport through IPC handles:
 * {@code p2p.cc}'s {@code p2pMap}). Zeroed and synchronized before its descriptor is handed
 * out, so that no peer, in any process, sees a FIFO before it is clean.
 */
final class ConnRegion implements AutoCloseable {
    /** Control words of a connection pair: receive tail, send head, send step, receive step. */
    static final int CTL_BYTES = 32;
    static final int TAIL = 0;
    static final int HEAD = 8;
    static final int SEND_STEP = 16;
    static final int RECV_STEP = 24;
    /** FIFOs start on 4 KiB boundaries. */
    private static final long FIFO_ALIGN = 4096;
    /** A descriptor: device ordinal, base address, IPC handle (zeros when no peer needs it). */
    static final int DESCRIPTOR_BYTES = 16 + CudaContext.IPC_HANDLE_BYTES;
    /** Other processes' regions mapped here, per (device, handle): a handle opens once per context. */
    private static final Map<String, Mapping> MAPPED = new HashMap<>();

    private final CudaContext ctx;
    private final long base;
    private final Map<Integer, Long> peers = new LinkedHashMap<>();
    private final Map<Integer, String> keys = new LinkedHashMap<>();

    private ConnRegion(CudaContext ctx, long base) {
        this.ctx = ctx;
        this.base = base;
    }

    /** An opened IPC mapping and how many regions use it. */
    private static final class Mapping {
        final long address;
        int users;

        Mapping(long address) {
            this.address = address;
        }
    }

    /**
     * @param ctx   this rank's context
     * @param bytes the region's size
     * @return a zeroed region, the zeroes on the device
     */
    static ConnRegion allocate(CudaContext ctx, long bytes) {
        long base = ctx.memAlloc(bytes);
        try {
            ctx.memsetD8(base, 0, bytes, 0);
            ctx.streamSynchronize(0);
        } catch (RuntimeException | Error e) {
            ctx.memFree(base);
            throw e;
        }
        return new ConnRegion(ctx, base);
    }

    /** @return {@code at} rounded up to where a FIFO may start */
    static long fifoAligned(long at) {
        return (at + FIFO_ALIGN - 1) / FIFO_ALIGN * FIFO_ALIGN;
    }

    /** @return the region's device address in this rank's context */
    long base() {
        return base;
    }

    /**
     * Writes this region's descriptor.
     *
     * @param out where, {@link #DESCRIPTOR_BYTES} of it
     * @param ipc whether a peer runs in another process (then the IPC handle is made)
     */
    void describe(ByteBuffer out, boolean ipc) {
        out.putLong(ctx.device()).putLong(base);
        out.put(ipc ? ctx.ipcHandle(base) : new byte[CudaContext.IPC_HANDLE_BYTES]);
    }

    /**
     * @param comm       the communicator
     * @return whether some rank runs in another process (the descriptors then carry IPC handles)
     */
    static boolean ipcNeeded(DeviceCommContext comm) {
        for (int q = 0; q < comm.nranks(); q++) {
            if (!comm.inThisProcess(q)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The base of a peer's region in this rank's context, mapped once per peer.
     *
     * @param comm       the communicator
     * @param peer       the peer's rank
     * @param descriptor its descriptor (position at its start, left unchanged)
     * @param contexts   this process's contexts by ordinal, for peer access
     * @return the address at which this rank's kernels reach the peer's region
     * @throws NcclException INVALID_USAGE naming the peer and why it cannot be reached
     */
    long map(DeviceCommContext comm, int peer, ByteBuffer descriptor, IntFunction<CudaContext> contexts) {
        Long known = peers.get(peer);
        if (known != null) {
            return known;
        }
        int at = descriptor.position();
        int device = (int) descriptor.getLong(at);
        long theirs = descriptor.getLong(at + 8);
        long mapped;
        if (comm.inThisProcess(peer)) {
            if (device != ctx.device()) {
                CudaContext other = contexts.apply(device);
                if (!ctx.canAccessPeer(other)) {
                    throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + " on GPU " + ctx.device()
                                    + " cannot access GPU " + device + " of rank " + peer,
                            "the GPUs need peer access (NVLink or a common PCIe switch)");
                }
                ctx.enablePeerAccess(other);
            }
            mapped = theirs;
        } else {
            byte[] handle = new byte[CudaContext.IPC_HANDLE_BYTES];
            descriptor.get(at + 16, handle);
            mapped = open(comm, peer, handle);
        }
        peers.put(peer, mapped);
        return mapped;
    }

    private long open(DeviceCommContext comm, int peer, byte[] handle) {
        String key = ctx.device() + ":" + HexFormat.of().formatHex(handle);
        synchronized (MAPPED) {
            Mapping m = MAPPED.get(key);
            if (m == null) {
                try {
                    m = new Mapping(ctx.ipcOpen(handle));
                } catch (NcclException e) {
                    throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + " cannot map the connection "
                            + "memory of rank " + peer + " (another process) through CUDA IPC: " + e.getMessage(),
                            "the two processes' GPUs need peer access (the same GPU, NVLink or a common PCIe switch); "
                                    + "SHM between processes is not implemented yet: use the host backend");
                }
                MAPPED.put(key, m);
            }
            m.users++;
            keys.put(peer, key);
            return m.address;
        }
    }

    /** Unmaps the peers' regions and frees this one; the kernels that use them must have ended. */
    @Override
    public void close() {
        synchronized (MAPPED) {
            for (String key : keys.values()) {
                Mapping m = MAPPED.get(key);
                if (m != null && --m.users == 0) {
                    MAPPED.remove(key);
                    ctx.ipcClose(m.address);
                }
            }
        }
        keys.clear();
        peers.clear();
        ctx.memFree(base);
    }
}
