package org.nccl4j.core.topo.detection;

/**
 * What detection needs to know of a rank (from AllGather1's peer info).
 *
 * @param rank       the rank
 * @param hostHash   its host identity
 * @param busId      its device's bus id (NCCL's int64 form)
 * @param backend    its device backend ("host" for host ranks)
 * @param localIndex its device number among its host's ranks
 * @param numaNode   the NUMA node it runs on (host ranks), -1 if unknown
 * @param gdr        whether its device supports GPUDirect RDMA
 */
public record DetectedRank(int rank, long hostHash, long busId, String backend, int localIndex, int numaNode,
                           boolean gdr) {
}
