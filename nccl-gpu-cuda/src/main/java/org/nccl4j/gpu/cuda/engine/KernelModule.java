package org.nccl4j.gpu.cuda.engine;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceCollPlan;
import org.nccl4j.gpu.cuda.driver.CudaContext;
import org.nccl4j.gpu.cuda.kernel.KernelEntries;

/**
 * nccl4j's kernels loaded into one device's context (the fatbin from the jar, once per device):
 * every entry of {@link KernelEntries#ALL}, looked up by name at load.
 */
final class KernelModule {
    private static final Map<Integer, KernelModule> LOADED = new ConcurrentHashMap<>();

    private final Map<String, Long> functions = new ConcurrentHashMap<>();

    private KernelModule(CudaContext ctx, byte[] fatbin) {
        long module = ctx.moduleLoad(fatbin);
        for (String name : KernelEntries.ALL) {
            functions.put(name, ctx.function(module, name));
        }
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
        return functions.get(KernelEntries.SEND_RECV);
    }

    /** @return the kernel that runs a collective as planned */
    long collective(DeviceCollOp.Kind kind, DeviceCollPlan plan) {
        return functions.get(KernelEntries.collective(kind.ncclName(), plan.tree(), plan.protocol()));
    }
}
