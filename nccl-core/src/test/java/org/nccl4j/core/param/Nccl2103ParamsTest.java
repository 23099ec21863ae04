package org.nccl4j.core.param;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every variable NCCL 2.10.3 reads is in the registry (and so in the README's configuration
 * table, with what nccl4j does with it): the names of its {@code NCCL_PARAM}s and {@code getenv}
 * calls across {@code src/} at tag v2.10.3-1, and the three it builds at run time
 * ({@code NCCL_P2P_DISABLE}, {@code NCCL_P2P_LEVEL}, {@code NCCL_NET_GDR_LEVEL} in paths.cc).
 */
class Nccl2103ParamsTest {
    private static final List<String> NCCL_2_10_3 = List.of(
        "NCCL_AGG_ALLOC_MODE", "NCCL_AGG_CHANNEL_SIZE", "NCCL_ALGO", "NCCL_BUFFSIZE",
        "NCCL_CHECK_POINTERS", "NCCL_COLLNET_ENABLE", "NCCL_COLLNET_NODE_THRESHOLD", "NCCL_COMM_ID",
        "NCCL_CROSS_NIC", "NCCL_DEBUG", "NCCL_DEBUG_FILE", "NCCL_DEBUG_SUBSYS", "NCCL_GDRCOPY_ENABLE",
        "NCCL_GDRCOPY_FIFO_ENABLE", "NCCL_GDRCOPY_FLUSH_ENABLE", "NCCL_GDRCOPY_TAIL_ENABLE",
        "NCCL_GDR_FLUSH_DISABLE", "NCCL_GRAPH_DUMP_FILE", "NCCL_GRAPH_DUMP_FILE_RANK", "NCCL_GRAPH_FILE",
        "NCCL_GROUP_CUDA_STREAM", "NCCL_HOSTID", "NCCL_IB_AR_THRESHOLD", "NCCL_IB_DISABLE",
        "NCCL_IB_GID_INDEX", "NCCL_IB_HCA", "NCCL_IB_PKEY", "NCCL_IB_QPS_PER_CONNECTION",
        "NCCL_IB_RETRY_CNT", "NCCL_IB_SL", "NCCL_IB_TC", "NCCL_IB_TIMEOUT", "NCCL_IB_USE_INLINE",
        "NCCL_IGNORE_CPU_AFFINITY", "NCCL_LAUNCH_MODE", "NCCL_LL128_BUFFSIZE", "NCCL_LL128_NTHREADS",
        "NCCL_LL_BUFFSIZE", "NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS", "NCCL_MAX_P2P_NCHANNELS",
        "NCCL_MIN_NCHANNELS", "NCCL_MIN_NRINGS", "NCCL_MIN_P2P_NCHANNELS", "NCCL_NET",
        "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_NET_SHARED_BUFFERS", "NCCL_NSOCKS_PERTHREAD",
        "NCCL_NTHREADS", "NCCL_NVB_DISABLE", "NCCL_NVB_PRECONNECT", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",
        "NCCL_P2P_READ_ENABLE", "NCCL_PROTO", "NCCL_SET_STACK_SIZE", "NCCL_SHM_DISABLE",
        "NCCL_SOCKET_FAMILY", "NCCL_SOCKET_IFNAME", "NCCL_SOCKET_NTHREADS", "NCCL_THREAD_THRESHOLDS",
        "NCCL_TOPO_DUMP_FILE", "NCCL_TOPO_DUMP_FILE_RANK", "NCCL_TOPO_FILE");

    @Test
    void everyVariableNccl2103ReadsIsRegistered() {
        List<String> missing = NCCL_2_10_3.stream().filter(n -> Params.find(n) == null).toList();
        assertEquals(List.of(), missing);
        assertEquals(65, NCCL_2_10_3.size());
    }
}
