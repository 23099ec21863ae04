// The LL protocol's primitives for one channel, written for nccl4j from reading NCCL 2.10.3's
// prims_ll.h: every 8 data bytes travel in a 16-byte line {data1, flag1, data2, flag2} stored
// with one 16-byte access, the flag being the step's (step + 1). A receiving thread polls its own
// lines until both flags match, so no tail and no block barrier stand between data and its use;
// the block meets once per step for the credit (head) and to free the slot.
#pragma once

#include "prims.h"

template <typename T, typename Red> struct n4j_prims_ll : n4j_prims_base<T, Red> {
  typedef n4j_prims_base<T, Red> B;
  size_t sliceBytes;

  __device__ n4j_prims_ll(const n4j_links& l, const n4j_coll_args& a, int* sharedAbort)
      : B(l, a, sharedAbort), sliceBytes((size_t)(a.stepBytes / N4J_LL_LINE) * 8 / sizeof(T) * sizeof(T)) {}

  N4J_PRIMS_CALLS

 private:
  // Polls line i of a slot until it carries flag (NCCL's readLL); 0 once the abort flag is seen.
  __device__ uint64_t readLL(const char* slot, size_t i, uint32_t flag) {
    int spins = 0;
    for (;;) {
      uint4 v = n4j_load_volatile16(slot + i * N4J_LL_LINE);
      if (v.y == flag && v.w == flag) return (uint64_t)v.x | ((uint64_t)v.z << 32);
      if (B::abortSeen(spins)) return 0;
    }
  }

  // Not inlined: one copy per type and reduction serves every call site and kernel (compile time).
  __device__ __noinline__ void run(int mode, const T* src, T* dst, size_t nelem, bool pre, bool post) {
    if (B::aborted) return;
    size_t bytes = nelem * sizeof(T);
    size_t slices = bytes == 0 ? 1 : (bytes + sliceBytes - 1) / sliceBytes;
    size_t done = 0;
    const bool srcAligned = ((uintptr_t)src & 7) == 0, dstAligned = ((uintptr_t)dst & 7) == 0;
    for (size_t k = 0; k < slices; k++) {
      size_t n = sliceBytes < bytes - done ? sliceBytes : bytes - done;
      if (threadIdx.x == 0) {
        if (mode & N4J_RECV) B::announceRecvs(N4J_PROTO_LL);
        if (mode & N4J_SEND) B::waitCredit(N4J_PROTO_LL, n);
      }
      __syncthreads();
      if (B::stopped()) return;
      const char* rl[N4J_MAX_FAN];
      char* sl[N4J_MAX_FAN];
      uint32_t rflag[N4J_MAX_FAN], sflag[N4J_MAX_FAN];
      for (int i = 0; i < B::L.nrecv; i++) {
        rl[i] = B::recvSlot(i, N4J_PROTO_LL);
        rflag[i] = (uint32_t)(B::recvStep[i] + 1);
      }
      for (int j = 0; j < B::L.nsend; j++) {
        sl[j] = B::sendSlot(j, N4J_PROTO_LL);
        sflag[j] = (uint32_t)(B::sendStep[j] + 1);
      }
      const char* s8 = reinterpret_cast<const char*>(src) + done;
      char* d8 = reinterpret_cast<char*>(dst) + done;
      const size_t lines = (n + 7) / 8;
      for (size_t i = threadIdx.x; i < lines; i += blockDim.x) {
        int nb = n - i * 8 < 8 ? (int)(n - i * 8) : 8;
        uint64_t s = (mode & N4J_SRC) ? n4j_load8(s8 + i * 8, nb, srcAligned) : 0;
        uint64_t r0 = (mode & N4J_RECV) ? readLL(rl[0], i, rflag[0]) : 0;
        uint64_t v = n4j_pack_first<T, Red, uint64_t>(B::red, mode, r0, s, pre);
        if (mode & N4J_REDUCE) {
          for (int q = 1; q < B::L.nrecv; q++) v = n4j_pack_apply<T, Red, uint64_t>(B::red, readLL(rl[q], i, rflag[q]), v);
          if (post) v = n4j_pack_post<T, Red, uint64_t>(B::red, v);
        }
        if (mode & N4J_SEND) {
          for (int j = 0; j < B::L.nsend; j++) {
            n4j_store_volatile16(sl[j] + i * N4J_LL_LINE, make_uint4((uint32_t)v, sflag[j], (uint32_t)(v >> 32), sflag[j]));
          }
        }
        if (mode & N4J_DST) n4j_store8(d8 + i * 8, v, nb, dstAligned);
      }
      __syncthreads();
      if (B::stopped()) return;
      if (mode & N4J_RECV) B::postHeads();
      B::advance(mode);
      done += n;
    }
  }
};
