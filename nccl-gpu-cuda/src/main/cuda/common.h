// nccl4j device code: what every kernel shares. Written for nccl4j from reading NCCL 2.10.3's
// src/collectives/device (common.h, primitives.h); one source for nvcc and hipcc.
#pragma once

#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
typedef __hip_bfloat16 n4j_bf16;
// HIP has no ld.cg; a nontemporal load also bypasses the non-coherent cache.
#define N4J_LOAD_CG(p) __builtin_nontemporal_load(p)
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef __nv_bfloat16 n4j_bf16;
// Loads from buffers other blocks write (FIFO slots) must not hit a stale L1 line: cache in L2 only.
#define N4J_LOAD_CG(p) __ldcg(p)
#endif

#define N4J_DEVICE static __device__ __forceinline__

// NCCL_STEPS: slots of a connection's FIFO.
#define N4J_STEPS 8
// Threads per block (one block per channel), NCCL's default for Simple.
#define N4J_THREADS 512
// 16-byte packs each thread loads before using any (loads in flight).
#define N4J_UNROLL 4
// Spins between two reads of the host-mapped abort flag (a read crosses PCIe).
#define N4J_ABORT_CHECK_SPINS 1024

// Element types: NCCL's ncclDataType_t values.
enum { N4J_INT8 = 0, N4J_UINT8, N4J_INT32, N4J_UINT32, N4J_INT64, N4J_UINT64, N4J_FLOAT16, N4J_FLOAT32,
       N4J_FLOAT64, N4J_BFLOAT16 };
// Reductions: NCCL's ncclRedOp_t values.
enum { N4J_SUM = 0, N4J_PROD, N4J_MAX, N4J_MIN, N4J_AVG };

// One direction of one channel's ring connection. The sender writes data into the receiver's
// FIFO slot (step % N4J_STEPS) and then the receiver's tail; the receiver reads the slot and
// then writes the sender's head. Both ends keep their step count in device memory across launches.
struct n4j_conn {
  char* buff;                 // the receiver's FIFO: N4J_STEPS slots of stepBytes
  volatile uint64_t* tail;    // in the receiver's memory: steps posted
  volatile uint64_t* head;    // in the sender's memory: steps consumed
  uint64_t* step;             // this end's step count
};

struct n4j_channel {
  struct n4j_conn send;       // to ring[1]
  struct n4j_conn recv;       // from ring[nranks-1]
  const int* ring;            // ranks by distance from this one: ring[0] is this rank
};

// A collective's arguments, packed by the Java launcher (CollArgs.java mirrors this layout).
struct n4j_coll_args {
  const void* sendbuff;
  void* recvbuff;
  uint64_t count;             // elements (per rank for AllGather and ReduceScatter)
  struct n4j_channel* channels;
  volatile int* abortFlag;    // host-mapped: set by the host to stop every wait
  int nranks;
  int root;
  int dtype;
  int redop;
  int stepBytes;              // bytes of one FIFO slot
  int nChannels;
};
