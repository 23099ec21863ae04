package org.nccl4j.core.device.gpu.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.nccl4j.core.device.DeviceCommContext;
import org.nccl4j.core.shm.ShmSegment;
import org.nccl4j.core.device.gpu.GpuRuntime;

/**
 * A rank's SHM connection memory (NCCL's {@code shm.cc}): a {@code /dev/shm} segment holding the
 * FIFOs and control words its SHM peers write into, page-locked and mapped into the GPU's address
 * space ({@code cuMemHostRegister}), so that kernels on both sides read and write it across the
 * bus where the two GPUs have no peer access (or P2P is disabled). A peer in this process uses the
 * same pages (registered for every context); a peer in another process maps the file and
 * registers it in its own context. The name is removed once every peer has mapped it.
 */
final class ShmConnRegion implements ConnRegion {
    private static final Path DIR = Path.of("/dev/shm");
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final int NAME_BYTES = GpuRuntime.IPC_HANDLE_BYTES - 8;
    /** Other processes' segments mapped here, per (device, name): a range registers once per mapping. */
    private static final Map<String, Attached> ATTACHED = new HashMap<>();

    private final GpuRuntime ctx;
    private final Path path;
    private final Arena arena;
    private final MemorySegment host;
    private final long base;
    private final Map<Integer, String> keys = new LinkedHashMap<>();

    private ShmConnRegion(GpuRuntime ctx, Path path, Arena arena, MemorySegment host, long base) {
        this.ctx = ctx;
        this.path = path;
        this.arena = arena;
        this.host = host;
        this.base = base;
    }

    /** A peer's segment mapped and registered here, and how many regions use it. */
    private record Attached(Arena arena, MemorySegment host, long device, int[] users) {
    }

    /**
     * @param ctx   this rank's context
     * @param comm  the communicator (its rank names the segment)
     * @param bytes the region's size
     * @return a zeroed region, registered with the driver
     */
    static ShmConnRegion allocate(GpuRuntime ctx, DeviceCommContext comm, long bytes) {
        String name = "nccl4j-gpu-" + ProcessHandle.current().pid() + "-" + comm.rank() + "-"
                + SEQUENCE.incrementAndGet();
        Path path = DIR.resolve(name);
        Arena arena = Arena.ofShared();
        try {
            MemorySegment host = ShmSegment.create(path, ConnRegion.fifoAligned(bytes), arena);
            ctx.hostRegister(host.address(), host.byteSize());
            try {
                return new ShmConnRegion(ctx, path, arena, host, ctx.devicePointerOf(host.address()));
            } catch (RuntimeException | Error e) {
                ctx.hostUnregister(host.address());
                throw e;
            }
        } catch (RuntimeException | Error e) {
            ShmSegment.delete(path);
            arena.close();
            throw e;
        }
    }

    @Override
    public long base() {
        return base;
    }

    @Override
    public void describe(ByteBuffer out, boolean otherProcesses) {
        out.putLong(ctx.device()).putLong(host.address()).putLong(host.byteSize());
        byte[] name = path.getFileName().toString().getBytes(StandardCharsets.US_ASCII);
        out.put(name).put(new byte[NAME_BYTES - name.length]);
    }

    @Override
    public long map(DeviceCommContext comm, int peer, ByteBuffer descriptor, IntFunction<GpuRuntime> contexts) {
        int at = descriptor.position();
        long theirHost = descriptor.getLong(at + 8);
        long mapped;
        if (comm.inThisProcess(peer)) {
            // Registered PORTABLE by its owner: every context of this process sees the same pages.
            mapped = ctx.devicePointerOf(theirHost);
        } else {
            long size = descriptor.getLong(at + 16);
            byte[] raw = new byte[NAME_BYTES];
            descriptor.get(at + 24, raw);
            int len = 0;
            while (len < raw.length && raw[len] != 0) {
                len++;
            }
            mapped = attach(peer, new String(raw, 0, len, StandardCharsets.US_ASCII), size);
        }
        return mapped;
    }

    private long attach(int peer, String name, long size) {
        String key = ctx.device() + ":" + name;
        synchronized (ATTACHED) {
            Attached a = ATTACHED.get(key);
            if (a == null) {
                Arena arena = Arena.ofShared();
                try {
                    MemorySegment host = ShmSegment.attach(DIR.resolve(name), size, arena, "rank " + peer);
                    ctx.hostRegister(host.address(), size);
                    try {
                        a = new Attached(arena, host, ctx.devicePointerOf(host.address()), new int[1]);
                    } catch (RuntimeException | Error e) {
                        ctx.hostUnregister(host.address());
                        throw e;
                    }
                } catch (RuntimeException | Error e) {
                    arena.close();
                    throw e;
                }
                ATTACHED.put(key, a);
            }
            a.users()[0]++;
            keys.put(peer, key);
            return a.device();
        }
    }

    @Override
    public void peersMapped() {
        ShmSegment.delete(path);
    }

    @Override
    public void close() {
        synchronized (ATTACHED) {
            for (String key : keys.values()) {
                Attached a = ATTACHED.get(key);
                if (a != null && --a.users()[0] == 0) {
                    ATTACHED.remove(key);
                    ctx.hostUnregister(a.host().address());
                    a.arena().close();
                }
            }
        }
        keys.clear();
        ShmSegment.delete(path);
        ctx.hostUnregister(host.address());
        arena.close();
    }
}
