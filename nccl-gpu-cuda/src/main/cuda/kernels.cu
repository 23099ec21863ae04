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

// Element-wise on one device: dst = a OP b, pre(a) or post(a), grid-stride. Used for a single
// rank's AVG, the reduction benchmarks and the semantics tests against the host reducers.
struct n4j_local {
  template <typename T, typename Red> static __device__ void run(const n4j_local_args* l) {
    const Red red(l->nranks);
    const T* a = static_cast<const T*>(l->a);
    const T* b = static_cast<const T*>(l->b);
    T* d = static_cast<T*>(l->dst);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < l->count; i += stride) {
      switch (l->mode) {
        case N4J_LOCAL_PREOP: d[i] = Red::kPre ? red.pre(a[i]) : a[i]; break;
        case N4J_LOCAL_POSTOP: d[i] = Red::kPost ? red.post(a[i]) : a[i]; break;
        default: d[i] = red.apply(a[i], b[i]); break;
      }
    }
  }
};

extern "C" __global__ void __launch_bounds__(N4J_THREADS) nccl4j_Reduce_Local(n4j_local_args l) {
  n4j_dispatch<n4j_local>(l.dtype, l.redop, &l);
}
