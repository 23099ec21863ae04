// nccl4j's CUDA kernels: one launch per collective, one block per channel (NCCL's model). The
// entry points are extern "C" so the Java launcher finds them by name in the fatbin
// (org.nccl4j.core.device.kernel.KernelEntries lists them): nccl4j_<collective>_<algorithm>_<protocol>.
#include "tree.h"

// The block's shared abort bit, cleared before any wait.
#define N4J_BLOCK_START()            \
  __shared__ int sAbort;             \
  if (threadIdx.x == 0) sAbort = 0;  \
  __syncthreads();

// A reducing collective: one instantiation per type and reduction, picked at run time.
#define N4J_REDUCING(COLL, ALGO, PROTO, K, PR)                                                               \
  extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_##COLL##_##ALGO##_##PROTO(n4j_coll_args a) { \
    N4J_BLOCK_START();                                                                                       \
    n4j_dispatch<K<PR>>(a.dtype, a.redop, &a, &sAbort);                                                      \
  }
// A byte collective (Broadcast, AllGather).
#define N4J_BYTES(COLL, PROTO, K, PR)                                                                          \
  extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_##COLL##_Ring_##PROTO(n4j_coll_args a) {     \
    N4J_BLOCK_START();                                                                                         \
    K<PR>::run(&a, &sAbort);                                                                                   \
  }
#define N4J_EVERY_PROTOCOL(M, ...) \
  M(__VA_ARGS__, LL, n4j_prims_ll) M(__VA_ARGS__, LL128, n4j_prims_ll128) M(__VA_ARGS__, Simple, n4j_prims_simple)

#define N4J_RING_REDUCING(COLL, K, PROTO, PR) N4J_REDUCING(COLL, Ring, PROTO, K, PR)
#define N4J_TREE_REDUCING(COLL, K, PROTO, PR) N4J_REDUCING(COLL, Tree, PROTO, K, PR)
#define N4J_RING_BYTES(COLL, K, PROTO, PR) N4J_BYTES(COLL, PROTO, K, PR)

N4J_EVERY_PROTOCOL(N4J_RING_REDUCING, AllReduce, n4j_ring_all_reduce)
N4J_EVERY_PROTOCOL(N4J_TREE_REDUCING, AllReduce, n4j_tree_all_reduce)
N4J_EVERY_PROTOCOL(N4J_RING_REDUCING, ReduceScatter, n4j_ring_reduce_scatter)
N4J_EVERY_PROTOCOL(N4J_RING_REDUCING, Reduce, n4j_ring_reduce)
N4J_EVERY_PROTOCOL(N4J_RING_BYTES, Broadcast, n4j_ring_broadcast)
N4J_EVERY_PROTOCOL(N4J_RING_BYTES, AllGather, n4j_ring_all_gather)

#include "sendrecv.h"

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_SendRecv_Simple(const N4J_GRID_CONSTANT n4j_p2p_args a) {
  N4J_BLOCK_START();
  n4j_p2p_lane_run(a, &sAbort);
}
