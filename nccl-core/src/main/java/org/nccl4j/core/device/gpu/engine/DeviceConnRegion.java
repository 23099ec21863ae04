package org.nccl4j.core.device.gpu.engine;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A rank's P2P connection memory: one device allocation holding every FIFO and control word its
 * P2P peers write into, so that one address and one IPC handle describe it all. A peer in
 * this process uses it directly (same context, or peer access between two GPUs); a peer in
 * another process maps it with {@link org.nccl4j.core.device.gpu.GpuRuntime#ipcOpen} ({@code cuIpcOpenMemHandle}) (NCCL's P2P transport through IPC handles:
 * {@code p2p.cc}'s {@code p2pMap}). Zeroed and synchronized before its descriptor is handed
 * out, so that no peer, in any process, sees a FIFO before it is clean.
 */
final class DeviceConnRegion implements ConnRegion {
    /** Other processes' regions mapped here, per (device, handle): a handle opens once per context. */
    private static final Map<String, Mapping> MAPPED = new HashMap<>();

    private final GpuRuntime ctx;
    private final long base;
    private final Map<Integer, String> keys = new LinkedHashMap<>();

    private DeviceConnRegion(GpuRuntime ctx, long base) {
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
    static DeviceConnRegion allocate(GpuRuntime ctx, long bytes) {
        long base = ctx.memAlloc(bytes);
        try {
            ctx.memsetD8(base, 0, bytes, 0);
            ctx.streamSynchronize(0);
        } catch (RuntimeException | Error e) {
            ctx.memFree(base);
            throw e;
        }
        return new DeviceConnRegion(ctx, base);
    }

    @Override
    public long base() {
        return base;
    }

    @Override
    public void describe(ByteBuffer out, boolean ipc) {
        out.putLong(ctx.device()).putLong(base);
        out.put(ipc ? ctx.ipcHandle(base) : new byte[GpuRuntime.IPC_HANDLE_BYTES]);
    }

    /**
     * @param comm the communicator
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

    @Override
    public long map(DeviceCommContext comm, int peer, ByteBuffer descriptor, IntFunction<GpuRuntime> contexts) {
        int at = descriptor.position();
        int device = (int) descriptor.getLong(at);
        long theirs = descriptor.getLong(at + 8);
        long mapped;
        if (comm.inThisProcess(peer)) {
            if (device != ctx.device()) {
                GpuRuntime other = contexts.apply(device);
                if (!ctx.canAccessPeer(other)) {
                    throw NcclException.of(Result.INVALID_USAGE, "rank " + comm.rank() + " on GPU " + ctx.device()
                                    + " cannot access GPU " + device + " of rank " + peer,
                            "the GPUs need peer access (NVLink or a common PCIe switch)");
                }
                ctx.enablePeerAccess(other);
            }
            mapped = theirs;
        } else {
            byte[] handle = new byte[GpuRuntime.IPC_HANDLE_BYTES];
            descriptor.get(at + 16, handle);
            mapped = open(comm, peer, handle);
        }
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
                            + "memory of rank " + peer + " (another process) through its IPC handle: " + e.getMessage(),
                            "the two processes' GPUs need peer access (the same GPU, NVLink or a common PCIe switch); "
                                    + "NCCL_P2P_DISABLE=1 (or a lower NCCL_P2P_LEVEL) connects them through SHM instead");
                }
                MAPPED.put(key, m);
            }
            m.users++;
            keys.put(peer, key);
            return m.address;
        }
    }

    @Override
    public void peersMapped() {
        // An IPC handle names nothing that outlives the allocation.
    }

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
        ctx.memFree(base);
    }
}
