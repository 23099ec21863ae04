// nccl4j device code: what every kernel shares. Written for nccl4j from reading NCCL 2.10.3's
// src/collectives/device (common.h, primitives.h); one source for nvcc and hipcc.
#pragma once

#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
// bfloat16 as raw bits: ROCm 5.2 has no hip_bf16.h, and hip_bfloat16 keeps a NaN's payload where
// CUDA (and the host reducers) write 0x7fff.
struct n4j_bf16 { uint16_t bits; };
static __device__ __forceinline__ float n4j_bf16_to_float(n4j_bf16 x) { return __uint_as_float((uint32_t)x.bits << 16); }
static __device__ __forceinline__ n4j_bf16 n4j_float_to_bf16(float f) {
  uint32_t u = __float_as_uint(f);
  if (f != f) return n4j_bf16{0x7fff};
  u += 0x7fff + ((u >> 16) & 1);  // round to nearest, ties to even
  return n4j_bf16{(uint16_t)(u >> 16)};
}
// HIP has no ld.cg: a nontemporal load, as RCCL reads FIFO data. The builtin takes scalars and
// clang vectors only, so each type is loaded as the unsigned word (or vector) of its size.
typedef unsigned int n4j_u32x4 __attribute__((ext_vector_type(4)));
template <int BYTES> struct n4j_word;
template <> struct n4j_word<1> { typedef uint8_t type; };
template <> struct n4j_word<2> { typedef uint16_t type; };
template <> struct n4j_word<4> { typedef uint32_t type; };
template <> struct n4j_word<8> { typedef uint64_t type; };
template <> struct n4j_word<16> { typedef n4j_u32x4 type; };
template <typename T>
static __device__ __forceinline__ T n4j_load_cg(const T* p) {
  typedef typename n4j_word<sizeof(T)>::type W;
  W w = __builtin_nontemporal_load(reinterpret_cast<const W*>(p));
  T v;
  __builtin_memcpy(&v, &w, sizeof(T));
  return v;
}
#define N4J_LOAD_CG(p) n4j_load_cg(p)
// A wavefront (64 lanes on CDNA) runs in lockstep: no lanes to reconverge, only the compiler to hold back.
#define N4J_SYNC_WARP() __builtin_amdgcn_wave_barrier()
// A 16-byte load and store whose 8-byte halves are each single accesses (LL lines).
static __device__ __forceinline__ uint4 n4j_load_volatile16(const void* p) {
  uint4 v;
  const volatile uint64_t* q = (const volatile uint64_t*)p;
  uint64_t a = q[0], b = q[1];
  v.x = (uint32_t)a; v.y = (uint32_t)(a >> 32); v.z = (uint32_t)b; v.w = (uint32_t)(b >> 32);
  return v;
}
static __device__ __forceinline__ void n4j_store_volatile16(void* p, uint4 v) {
  volatile uint64_t* q = (volatile uint64_t*)p;
  q[0] = v.x | ((uint64_t)v.y << 32);
  q[1] = v.z | ((uint64_t)v.w << 32);
}
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef __nv_bfloat16 n4j_bf16;
static __device__ __forceinline__ float n4j_bf16_to_float(n4j_bf16 x) { return __bfloat162float(x); }
static __device__ __forceinline__ n4j_bf16 n4j_float_to_bf16(float f) { return __float2bfloat16_rn(f); }
// Loads from buffers other blocks write (FIFO slots) must not hit a stale L1 line: cache in L2 only.
#define N4J_LOAD_CG(p) __ldcg(p)
#define N4J_SYNC_WARP() __syncwarp()
// LL lines: one 16-byte access, each 8-byte half (data and flag) seen whole (NCCL's readLL/storeLL).
static __device__ __forceinline__ uint4 n4j_load_volatile16(const void* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
static __device__ __forceinline__ void n4j_store_volatile16(void* p, uint4 v) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
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

// Protocols: NCCL's NCCL_PROTO_* values, the index of a connection's buffer.
enum { N4J_PROTO_LL = 0, N4J_PROTO_LL128, N4J_PROTO_SIMPLE };
// LL: 16-byte lines {data1, flag1, data2, flag2}; LL128: 128-byte lines of 15 data words and a
// flag word last (org.nccl4j.core.proto.LlLine and Ll128Line lay them out the same way).
#define N4J_LL_LINE 16
#define N4J_LL128_LINE 128
#define N4J_LL128_DATA 120
// Peers a primitive receives from or sends to at most (NCCL_MAX_TREE_ARITY).
#define N4J_MAX_FAN 3

// One direction of one connection between two ranks of a channel. The sender writes data into
// the receiver's FIFO slot (step % N4J_STEPS) of the call's protocol and then, for Simple, the
// receiver's tail (LL and LL128 lines carry their own flags); the receiver reads the slot and
// then writes the sender's head. Both ends keep their step count in device memory across
// launches; one count serves every protocol, as in NCCL. Over the network each end has FIFOs of
// its own in host memory, which a host proxy moves between (nccl-core's NetSendTask and
// NetRecvTask): the sender tells it each step's size and, for LL and LL128, the step's tag; the
// receiver tells it the tag of each step it waits for, and the proxy's tail says a step is in.
struct n4j_conn {
  char* buffs[3];             // the receiver's FIFOs, by protocol: N4J_STEPS slots each (NET: this end's)
  volatile uint64_t* tail;    // in the receiver's memory: Simple steps posted (NET: the proxy's count)
  volatile uint64_t* head;    // in the sender's memory: steps consumed (NET: this end's)
  uint64_t* step;             // this end's step count
  volatile int* sizes;        // NET send: bytes of each step for the proxy; null otherwise
  volatile uint64_t* tags;    // NET: each step's n4j_tag, for the proxy; null otherwise
};

// The tag of a step on a NET connection (org.nccl4j.core.conn.ConnMem.tag): the step and its
// protocol, so that a slot's tag from an earlier step never matches.
N4J_DEVICE uint64_t n4j_tag(uint64_t step, int proto) { return (step + 1) << 2 | (uint64_t)proto; }

// Bytes a step of n data bytes occupies in a FIFO slot: LL lines carry 8, LL128 lines 120.
N4J_DEVICE size_t n4j_wire_bytes(int proto, size_t n) {
  if (proto == N4J_PROTO_LL) return (n + 7) / 8 * N4J_LL_LINE;
  if (proto == N4J_PROTO_LL128) return (n + N4J_LL128_DATA - 1) / N4J_LL128_DATA * N4J_LL128_LINE;
  return n;
}

// A channel seen from this rank: its ring and tree connections. A peer that is both a ring and
// a tree neighbour has one connection per direction, which both use (the same words).
struct n4j_channel {
  struct n4j_conn ringSend;   // to ring[1]
  struct n4j_conn ringRecv;   // from ring[nranks-1]
  struct n4j_conn upSend;     // to the tree parent (unused at the root)
  struct n4j_conn upRecv;     // from the tree parent
  struct n4j_conn downSend[N4J_MAX_FAN];  // to each child
  struct n4j_conn downRecv[N4J_MAX_FAN];  // from each child
  const int* ring;            // ranks by distance from this one: ring[0] is this rank
  int treeUp;                 // parent rank, -1 at the root
  int nTreeDown;              // children
};

// A collective's arguments, packed by the Java launcher (CollArgs.java mirrors this layout): the
// buffers and the plan nccl-core computed (DeviceCollPlan).
struct n4j_coll_args {
  const void* sendbuff;
  void* recvbuff;
  uint64_t count;             // elements (per rank for AllGather and ReduceScatter)
  struct n4j_channel* channels;
  volatile int* abortFlag;    // host-mapped: set by the host to stop every wait
  uint64_t chunk;             // elements per chunk
  uint64_t align;             // Ring: chunks round up to a multiple of this many elements
  int nranks;
  int root;
  int dtype;
  int redop;
  int stepBytes;              // bytes of one FIFO slot of the call's protocol
  int nChannels;
  int interleaved;            // Ring AllReduce: chunk c of channel b at c * nChannels + b
  int pad;
};

// The connections one primitive uses: reduced from recv[0..nrecv) in order, sent to every send[].
struct n4j_links {
  const struct n4j_conn* recv[N4J_MAX_FAN];
  const struct n4j_conn* send[N4J_MAX_FAN];
  int nrecv, nsend;
};

// CollArgs.java and ChannelConns.java pack these layouts; a change here must change them too.
static_assert(sizeof(n4j_conn) == 64, "ChannelConns.CONN_BYTES");
static_assert(sizeof(n4j_channel) == 656 && __builtin_offsetof(n4j_channel, ring) == 640, "ChannelConns.CHANNEL_BYTES");
static_assert(sizeof(n4j_coll_args) == 88 && __builtin_offsetof(n4j_coll_args, nranks) == 56, "CollArgs.COLL_BYTES");
