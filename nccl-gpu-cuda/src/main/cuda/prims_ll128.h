// The LL128 protocol's primitives for one channel, written for nccl4j from reading NCCL 2.10.3's
// prims_ll128.h, with the host backend's line (org.nccl4j.core.proto.Ll128Line): 128-byte lines
// of 15 data words and a flag word last, the flag being the step's (step + 1). Eight threads own
// a line, two words each, the eighth holding the flag. NCCL relies on a warp's 128-byte store
// reaching the peer whole; here the order is explicit, so it holds on any link: a warp stores its
// lines' data, fences, then its flag threads store the flags; a receiving warp's flag threads
// poll the flags, fence, and the warp reads the data. The block meets once per step for the
// credit (head) and to free the slot. On a NET connection the step's tail follows its flags
// (NCCL's postSend): with GPU Direct RDMA the lines lie in GPU memory, where the proxy cannot
// check their flags.
#pragma once

#include "prims.h"

template <typename T, typename Red> struct n4j_prims_ll128 : n4j_prims_base<T, Red> {
  typedef n4j_prims_base<T, Red> B;
  size_t sliceBytes;

  __device__ n4j_prims_ll128(const n4j_links& l, const n4j_coll_args& a, int* sharedAbort)
      : B(l, a, sharedAbort),
        sliceBytes((size_t)(a.stepBytes / N4J_LL128_LINE) * N4J_LL128_DATA / sizeof(T) * sizeof(T)) {}

  N4J_PRIMS_CALLS

 private:
  // Not inlined: one copy per type and reduction serves every call site and kernel (compile time).
  __device__ __noinline__ void run(int mode, const T* src, T* dst, size_t nelem, bool pre, bool post) {
    if (B::aborted) return;
    size_t bytes = nelem * sizeof(T);
    size_t slices = bytes == 0 ? 1 : (bytes + sliceBytes - 1) / sliceBytes;
    size_t done = 0;
    const bool srcAligned = ((uintptr_t)src & 7) == 0, dstAligned = ((uintptr_t)dst & 7) == 0;
    const int lane8 = threadIdx.x % 8;       // this thread's words: 2 * lane8 and 2 * lane8 + 1
    const bool flagThread = lane8 == 7;      // word 15 is the flag
    const size_t group = threadIdx.x / 8, groups = blockDim.x / 8;
    for (size_t k = 0; k < slices; k++) {
      size_t n = sliceBytes < bytes - done ? sliceBytes : bytes - done;
      if (threadIdx.x == 0) {
        if (mode & N4J_RECV) B::announceRecvs(N4J_PROTO_LL128);
        if (mode & N4J_SEND) B::waitCredit(N4J_PROTO_LL128, n);
      }
      __syncthreads();
      if (B::stopped()) return;
      const char* rl[N4J_MAX_FAN];
      char* sl[N4J_MAX_FAN];
      for (int i = 0; i < B::L.nrecv; i++) rl[i] = B::recvSlot(i, N4J_PROTO_LL128);
      for (int j = 0; j < B::L.nsend; j++) sl[j] = B::sendSlot(j, N4J_PROTO_LL128);
      const size_t lines = (n + N4J_LL128_DATA - 1) / N4J_LL128_DATA;
      if ((mode & N4J_RECV) && flagThread) {
        for (size_t l = group; l < lines; l += groups) {
          for (int i = 0; i < B::L.nrecv; i++) {
            const volatile uint64_t* f = reinterpret_cast<const volatile uint64_t*>(rl[i] + l * N4J_LL128_LINE + 120);
            int spins = 0;
            while (*f != B::recvStep[i] + 1) {
              if (B::abortSeen(spins)) break;
            }
          }
        }
        __threadfence();
      }
      N4J_SYNC_WARP();
      const char* s8 = reinterpret_cast<const char*>(src) + done;
      char* d8 = reinterpret_cast<char*>(dst) + done;
      for (size_t l = group; l < lines; l += groups) {
        for (int h = 0; h < 2; h++) {
          const int word = 2 * lane8 + h;
          if (word == 15) continue;
          const size_t off = l * N4J_LL128_DATA + word * 8;
          if (off >= n) continue;
          const int nb = n - off < 8 ? (int)(n - off) : 8;
          uint64_t s = (mode & N4J_SRC) ? n4j_load8(s8 + off, nb, srcAligned) : 0;
          const size_t at = l * N4J_LL128_LINE + word * 8;
          uint64_t r0 = (mode & N4J_RECV) ? N4J_LOAD_CG(reinterpret_cast<const unsigned long long*>(rl[0] + at)) : 0;
          uint64_t v = n4j_pack_first<T, Red, uint64_t>(B::red, mode, r0, s, pre);
          if (mode & N4J_REDUCE) {
            for (int q = 1; q < B::L.nrecv; q++) {
              v = n4j_pack_apply<T, Red, uint64_t>(B::red,
                    N4J_LOAD_CG(reinterpret_cast<const unsigned long long*>(rl[q] + at)), v);
            }
            if (post) v = n4j_pack_post<T, Red, uint64_t>(B::red, v);
          }
          if (mode & N4J_SEND) {
            for (int j = 0; j < B::L.nsend; j++) *reinterpret_cast<uint64_t*>(sl[j] + at) = v;
          }
          if (mode & N4J_DST) n4j_store8(d8 + off, v, nb, dstAligned);
        }
      }
      if (mode & N4J_SEND) {
        __threadfence_system();
        N4J_SYNC_WARP();
        if (flagThread) {
          for (size_t l = group; l < lines; l += groups) {
            for (int j = 0; j < B::L.nsend; j++) {
              *reinterpret_cast<volatile uint64_t*>(sl[j] + l * N4J_LL128_LINE + 120) = B::sendStep[j] + 1;
            }
          }
          if (B::netSend()) __threadfence_system();
        }
      }
      __syncthreads();
      if (B::stopped()) return;
      if (mode & N4J_SEND) B::postNetTails();
      if (mode & N4J_RECV) B::postHeads();
      B::advance(mode);
      done += n;
    }
  }
};
