package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nccl4j.core.conn.ConnAllocator;
import org.nccl4j.core.conn.ConnMem;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.device.DeviceNetConn;
import org.nccl4j.core.device.DeviceNetLink;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A rank's network connections (NCCL's NET transport): nccl-core connects them through the
 * communicator's network plugin and moves their steps with its proxy thread
 * ({@link DeviceCommContext#connectNet}); their headers, and their FIFOs without GPU Direct RDMA,
 * lie in pinned host memory mapped into the GPU's address space, which this class allocates, so
 * the kernels write and read them across the bus; with GPU Direct RDMA the FIFOs the network
 * reads or writes directly lie in the GPU's memory, which this class allocates too. A send end's
 * kernel tells the proxy each step's size and tag in the receive header; a receive end's kernel
 * announces the tags of the steps it waits for.
 */
final class NetConns implements AutoCloseable {
    private final GpuRuntime ctx;
    private final DeviceCommContext comm;
    private final Map<DeviceNetLink, DeviceNetConn> conns;
    /** The memory this class allocated, by the address nccl-core sees. */
    private final TreeMap<Long, Region> regions;
    private final Map<DeviceNetLink, Long> steps;
    /** Any of the connections, to wake their one proxy thread; null without any. */
    private final DeviceNetConn any;

    /**
     * One allocation.
     *
     * @param device    its device address (pinned host memory: where it is mapped; device memory: its own)
     * @param bytes     its size
     * @param onDevice  device memory ({@code cuMemAlloc}), else pinned host memory ({@code cuMemHostAlloc})
     */
    private record Region(long device, long bytes, boolean onDevice) {
    }

    private NetConns(GpuRuntime ctx, DeviceCommContext comm, Map<DeviceNetLink, DeviceNetConn> conns,
                     TreeMap<Long, Region> regions, Map<DeviceNetLink, Long> steps) {
        this.ctx = ctx;
        this.comm = comm;
        this.conns = conns;
        this.regions = regions;
        this.steps = steps;
        this.any = conns.values().stream().findAny().orElse(null);
    }

    /**
     * @param ctx   this rank's context
     * @param comm  the communicator being built
     * @param links this rank's ends, channel by channel in the same order as the peers'
     * @param tag   keeps this setup's bootstrap messages apart (0..255)
     * @return the connections (none when {@code links} is empty)
     */
    static NetConns connect(GpuRuntime ctx, DeviceCommContext comm, List<DeviceNetLink> links, int tag) {
        TreeMap<Long, Region> regions = new TreeMap<>();
        Map<DeviceNetLink, DeviceNetConn> conns = Map.of();
        try {
            conns = comm.connectNet(links, tag, new ConnAllocator() {
                @Override
                public MemorySegment allocate(long bytes, long alignment) {
                    // cuMemHostAlloc gives page-aligned, zeroed memory: headers (4096-aligned) need no more.
                    long host = ctx.hostAllocMapped(bytes);
                    synchronized (regions) {
                        regions.put(host, new Region(ctx.devicePointerOf(host), bytes, false));
                    }
                    return MemorySegment.ofAddress(host).reinterpret(bytes);
                }

                @Override
                public MemorySegment allocateDevice(long bytes) {
                    long dptr = ctx.memAlloc(bytes);
                    synchronized (regions) {
                        regions.put(dptr, new Region(dptr, bytes, true));
                    }
                    ctx.memsetD8(dptr, 0, bytes, 0);
                    ctx.streamSynchronize(0);
                    return MemorySegment.ofAddress(dptr).reinterpret(bytes);
                }
            });
            // Each end's step count, across launches: one word each in pinned memory too.
            Map<DeviceNetLink, Long> steps = new java.util.HashMap<>();
            if (!links.isEmpty()) {
                long host = ctx.hostAllocMapped(8L * links.size());
                long dev = ctx.devicePointerOf(host);
                regions.put(host, new Region(dev, 8L * links.size(), false));
                for (int k = 0; k < links.size(); k++) {
                    steps.put(links.get(k), dev + 8L * k);
                }
            }
            return new NetConns(ctx, comm, conns, regions, steps);
        } catch (RuntimeException | Error e) {
            conns.values().forEach(DeviceNetConn::close);
            free(ctx, regions);
            throw e;
        }
    }

    private static void free(GpuRuntime ctx, TreeMap<Long, Region> regions) {
        regions.forEach((at, r) -> {
            if (r.onDevice()) {
                ctx.memFree(at);
            } else {
                ctx.freeHost(at);
            }
        });
        regions.clear();
    }

    /** @return the device address of memory this class allocated */
    private long device(MemorySegment s, long offset) {
        long host = s.address() + offset;
        Map.Entry<Long, Region> e = regions.floorEntry(host);
        if (e == null || host >= e.getKey() + e.getValue().bytes()) {
            throw new IllegalStateException("0x" + Long.toHexString(host) + " is not in the connections' memory");
        }
        return e.getValue().device() + (host - e.getKey());
    }

    /**
     * @param channel the channel
     * @param peer    the rank at the other end
     * @param send    which end
     * @return its device addresses for the kernels
     */
    ConnEnd end(int channel, int peer, boolean send) {
        DeviceNetLink link = new DeviceNetLink(channel, peer, send);
        DeviceNetConn c = conns.get(link);
        long[] buffs = new long[Protocol.values().length];
        for (Protocol p : Protocol.values()) {
            buffs[p.code()] = device(c.buff(p), 0);
        }
        long tail = device(c.recvHeader(), ConnMem.COUNTER);
        long head = device(c.sendHeader(), ConnMem.COUNTER);
        return send
                ? new ConnEnd(buffs, tail, head, steps.get(link), device(c.recvHeader(), ConnMem.SIZES),
                        device(c.recvHeader(), ConnMem.SEND_TAGS))
                : new ConnEnd(buffs, tail, head, steps.get(link), 0, device(c.recvHeader(), ConnMem.RECV_TAGS));
    }

    /**
     * @param channel a channel
     * @param peer    a rank
     * @return whether this rank's connections with it on that channel go through the network
     */
    boolean has(int channel, int peer) {
        return conns.containsKey(new DeviceNetLink(channel, peer, true));
    }

    /** Wakes the proxy thread: a kernel that uses these connections was launched. */
    void wake() {
        // One proxy thread serves them all. Called at every launch: no work without a connection.
        if (any != null) {
            any.wake();
        }
    }

    /**
     * Lets the proxy finish the sends the kernels posted (bounded, and not after an abort), ends
     * its work on every connection, then frees their memory; the kernels must have ended.
     */
    @Override
    public void close() {
        List<DeviceNetConn> all = new ArrayList<>(conns.values());
        comm.awaitNetDrained(all);
        all.forEach(DeviceNetConn::close);
        free(ctx, regions);
    }
}
