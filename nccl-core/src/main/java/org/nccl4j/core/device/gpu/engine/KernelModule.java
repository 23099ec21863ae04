package org.nccl4j.core.device.gpu.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollPlan;
import org.nccl4j.core.proto.Protocol;
import org.nccl4j.core.device.gpu.GpuRuntime;
import org.nccl4j.core.device.kernel.KernelEntries;

/**
 * nccl4j's kernels loaded into one device's context (the fatbin from the jar, once per device):
 * every entry of {@link KernelEntries#ALL}, looked up by name at load.
 */
final class KernelModule {
    private static final Map<Integer, KernelModule> LOADED = new ConcurrentHashMap<>();

    private static final int PROTOCOLS = Protocol.values().length;

    private final long sendRecv;
    /** The collectives' functions by {@link #index}: a launch looks its kernel up without building its name. */
    private final long[] collectives = new long[DeviceCollOp.Kind.values().length * 2 * PROTOCOLS];

    private KernelModule(GpuRuntime ctx, byte[] fatbin) {
        long module = ctx.moduleLoad(fatbin);
        sendRecv = ctx.function(module, KernelEntries.SEND_RECV);
        for (DeviceCollOp.Kind k : DeviceCollOp.Kind.values()) {
            for (boolean tree : new boolean[] {false, true}) {
                for (Protocol p : Protocol.values()) {
                    String name = KernelEntries.collective(k.ncclName(), tree, p);
                    if (KernelEntries.ALL.contains(name)) {
                        collectives[index(k, tree, p)] = ctx.function(module, name);
                    }
                }
            }
        }
    }

    private static int index(DeviceCollOp.Kind kind, boolean tree, Protocol p) {
        return (kind.ordinal() * 2 + (tree ? 1 : 0)) * PROTOCOLS + p.ordinal();
    }

    /**
     * @param ctx    the device's context
     * @param fatbin the kernels' image
     * @return the module of that device, loaded on first use
     */
    static KernelModule of(GpuRuntime ctx, byte[] fatbin) {
        return LOADED.computeIfAbsent(ctx.device(), d -> new KernelModule(ctx, fatbin));
    }

    long sendRecv() {
        return sendRecv;
    }

    /** @return the kernel that runs a collective as planned */
    long collective(DeviceCollOp.Kind kind, DeviceCollPlan plan) {
        return collectives[index(kind, plan.tree(), plan.protocol())];
    }
}
