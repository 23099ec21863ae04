package org.nccl4j.core.device.kernel;

import java.util.ArrayList;
import java.util.List;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.proto.Protocol;

/**
 * The kernels a GPU backend launches, by their {@code extern "C"} entry names in
 * nccl-gpu-cuda's {@code src/main/cuda/kernels.cu}, the one kernel source of the CUDA and HIP
 * backends. Each build must hold every one of them for every target (nccl-gpu-cuda's
 * {@code FatbinContentsTest}, nccl-gpu-hip's {@code CodeObjectContentsTest}).
 */
public final class KernelEntries {
    /** Every entry name: the collectives' ({@link #collective}) and Send/Recv's. */
    public static final List<String> ALL = all();

    /** The Send/Recv kernel's entry. */
    public static final String SEND_RECV = "nccl4j_SendRecv_Simple";

    /**
     * @param ncclName the collective's NCCL name ({@code AllReduce}, ...)
     * @param tree     Tree (AllReduce only) rather than Ring
     * @param protocol the protocol
     * @return its kernel's entry name, {@code nccl4j_<collective>_<Ring|Tree>_<LL|LL128|Simple>}
     */
    public static String collective(String ncclName, boolean tree, Protocol protocol) {
        return "nccl4j_" + ncclName + "_" + (tree ? "Tree" : "Ring") + "_" + protocol.ncclName();
    }

    private static List<String> all() {
        List<String> all = new ArrayList<>();
        for (DeviceCollOp.Kind k : DeviceCollOp.Kind.values()) {
            for (Protocol p : Protocol.values()) {
                all.add(collective(k.ncclName(), false, p));
                if (k == DeviceCollOp.Kind.ALL_REDUCE) {
                    all.add(collective(k.ncclName(), true, p));
                }
            }
        }
        all.add(SEND_RECV);
        return List.copyOf(all);
    }

    private KernelEntries() {
    }
}
