package org.nccl4j.gpu.cuda.engine;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.gpu.cuda.driver.CudaContext;

/**
 * nccl4j's kernels loaded into one device's context (the fatbin from the jar, once per device):
 * the ring kernel of each collective.
 */
final class KernelModule {
    private static final Map<Integer, KernelModule> LOADED = new ConcurrentHashMap<>();

    /** The Send/Recv kernel's entry ({@code kernels.cu}). */
    static final String SEND_RECV_ENTRY = "nccl4j_SendRecv_Simple";
    private final Map<DeviceCollOp.Kind, Long> rings = new EnumMap<>(DeviceCollOp.Kind.class);
    private final long sendRecv;

    private KernelModule(CudaContext ctx, byte[] fatbin) {
        long module = ctx.moduleLoad(fatbin);
        for (DeviceCollOp.Kind k : DeviceCollOp.Kind.values()) {
            rings.put(k, ctx.function(module, ringEntry(k)));
        }
        sendRecv = ctx.function(module, SEND_RECV_ENTRY);
    }

    /** @return the Simple ring kernel's name of a collective ({@code kernels.cu}) */
    static String ringEntry(DeviceCollOp.Kind kind) {
        return "nccl4j_" + kind.ncclName() + "_Ring_Simple";
    }

    /**
     * @param ctx    the device's context
     * @param fatbin the kernels' image
     * @return the module of that device, loaded on first use
     */
    static KernelModule of(CudaContext ctx, byte[] fatbin) {
        return LOADED.computeIfAbsent(ctx.device(), d -> new KernelModule(ctx, fatbin));
    }

    long sendRecv() {
        return sendRecv;
    }

    long ring(DeviceCollOp.Kind kind) {
        return rings.get(kind);
    }
}
