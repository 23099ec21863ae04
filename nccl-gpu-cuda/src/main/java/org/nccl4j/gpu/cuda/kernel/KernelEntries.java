package org.nccl4j.gpu.cuda.kernel;

import java.util.List;

/**
 * The kernels the CUDA backend launches, by their {@code extern "C"} entry names in
 * {@code src/main/cuda/kernels.cu}. The build's fatbin must hold each of them for every
 * architecture ({@code FatbinContentsTest} checks it).
 */
public final class KernelEntries {
    /** Every entry name. */
    public static final List<String> ALL = List.of(
            "nccl4j_AllReduce_Ring_Simple",
            "nccl4j_Broadcast_Ring_Simple",
            "nccl4j_Reduce_Ring_Simple",
            "nccl4j_AllGather_Ring_Simple",
            "nccl4j_ReduceScatter_Ring_Simple",
            "nccl4j_SendRecv_Simple");

    private KernelEntries() {
    }
}
