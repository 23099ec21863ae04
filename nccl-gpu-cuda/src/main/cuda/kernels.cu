// nccl4j's CUDA kernels: one launch per collective, one block per channel (NCCL's model). The
// entry points are extern "C" so the Java launcher finds them by name in the fatbin
// (org.nccl4j.gpu.cuda.kernel.KernelEntries lists them).
#include "ring.h"

template <template <typename, typename> class K> struct n4j_coll {
  template <typename T, typename Red> static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    K<T, Red>::run(a, sAbort);
  }
};

// The block's shared abort bit, cleared before any wait.
#define N4J_BLOCK_START()            \
  __shared__ int sAbort;             \
  if (threadIdx.x == 0) sAbort = 0;  \
  __syncthreads();

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_AllReduce_Ring_Simple(n4j_coll_args a) {
  N4J_BLOCK_START();
  n4j_dispatch<n4j_coll<n4j_ring_all_reduce>>(a.dtype, a.redop, &a, &sAbort);
}

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_ReduceScatter_Ring_Simple(n4j_coll_args a) {
  N4J_BLOCK_START();
  n4j_dispatch<n4j_coll<n4j_ring_reduce_scatter>>(a.dtype, a.redop, &a, &sAbort);
}

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_Reduce_Ring_Simple(n4j_coll_args a) {
  N4J_BLOCK_START();
  n4j_dispatch<n4j_coll<n4j_ring_reduce>>(a.dtype, a.redop, &a, &sAbort);
}

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_Broadcast_Ring_Simple(n4j_coll_args a) {
  N4J_BLOCK_START();
  n4j_ring_broadcast(&a, &sAbort);
}

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_AllGather_Ring_Simple(n4j_coll_args a) {
  N4J_BLOCK_START();
  n4j_ring_all_gather(&a, &sAbort);
}

#include "sendrecv.h"

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_SendRecv_Simple(const N4J_GRID_CONSTANT n4j_p2p_args a) {
  N4J_BLOCK_START();
  n4j_p2p_lane_run(a, &sAbort);
}
