// The Simple protocol's primitives for one channel (one block), written for nccl4j from reading
// NCCL 2.10.3's prims_simple.h. Thread 0 waits for data (each receiver's tail) and credit (each
// sender's head), the block moves or reduces the slice in 16-byte packs, a fence, thread 0
// publishes the tails and heads.
#pragma once

#include "prims.h"

template <typename T, typename Red> struct n4j_prims_simple : n4j_prims_base<T, Red> {
  typedef n4j_prims_base<T, Red> B;
  size_t sliceBytes;

  __device__ n4j_prims_simple(const n4j_links& l, const n4j_coll_args& a, int* sharedAbort)
      : B(l, a, sharedAbort), sliceBytes(a.stepBytes / sizeof(T) * sizeof(T)) {}

  N4J_PRIMS_CALLS

 private:
  // One output pack at pack index p: own and received packs combined, further receivers folded in.
  template <typename P>
  __device__ P out(int mode, P r0, P s, const T* const* rb, size_t p, bool pre, bool post) const {
    P v = n4j_pack_first<T, Red, P>(B::red, mode, r0, s, pre);
    if (mode & N4J_REDUCE) {
      for (int i = 1; i < B::L.nrecv; i++) {
        v = n4j_pack_apply<T, Red, P>(B::red, N4J_LOAD_CG(reinterpret_cast<const P*>(rb[i]) + p), v);
      }
      if (post) v = n4j_pack_post<T, Red, P>(B::red, v);
    }
    return v;
  }

  // The ring's case, one receiver and one sender at most, with the mode known at compile time:
  // 16-byte packs while every pointer is aligned (slots are; chunk offsets are multiples of 64
  // bytes), N4J_UNROLL of them per thread loaded before any is used, so that several loads per
  // thread are in flight. Returns the elements it moved (the rest are the caller's).
  template <int MODE>
  __device__ size_t movePacks(const T* src, T* dst, const T* rb, T* sb, size_t nelem, bool pre, bool post) const {
    const size_t per = 16 / sizeof(T);
    if ((((uintptr_t)src | (uintptr_t)dst | (uintptr_t)rb | (uintptr_t)sb) & 15) != 0) return 0;
    const size_t packs = nelem / per;
    const size_t step = (size_t)blockDim.x * N4J_UNROLL;
    size_t p0 = threadIdx.x;
    for (; p0 + (N4J_UNROLL - 1) * blockDim.x < packs; p0 += step) {
      uint4 r[N4J_UNROLL], s[N4J_UNROLL];
#pragma unroll
      for (int u = 0; u < N4J_UNROLL; u++) {
        size_t p = p0 + u * blockDim.x;
        if (MODE & N4J_RECV) r[u] = N4J_LOAD_CG(reinterpret_cast<const uint4*>(rb) + p);
        if (MODE & N4J_SRC) s[u] = reinterpret_cast<const uint4*>(src)[p];
      }
#pragma unroll
      for (int u = 0; u < N4J_UNROLL; u++) {
        uint4 o = n4j_pack_first<T, Red, uint4>(B::red, MODE, r[u], s[u], pre);
        if ((MODE & N4J_REDUCE) && post) o = n4j_pack_post<T, Red, uint4>(B::red, o);
        size_t p = p0 + u * blockDim.x;
        if (MODE & N4J_DST) reinterpret_cast<uint4*>(dst)[p] = o;
        if (MODE & N4J_SEND) reinterpret_cast<uint4*>(sb)[p] = o;
      }
    }
    for (size_t p = p0; p < packs; p += blockDim.x) {
      uint4 r, s;
      if (MODE & N4J_RECV) r = N4J_LOAD_CG(reinterpret_cast<const uint4*>(rb) + p);
      if (MODE & N4J_SRC) s = reinterpret_cast<const uint4*>(src)[p];
      uint4 o = n4j_pack_first<T, Red, uint4>(B::red, MODE, r, s, pre);
      if ((MODE & N4J_REDUCE) && post) o = n4j_pack_post<T, Red, uint4>(B::red, o);
      if (MODE & N4J_DST) reinterpret_cast<uint4*>(dst)[p] = o;
      if (MODE & N4J_SEND) reinterpret_cast<uint4*>(sb)[p] = o;
    }
    return packs * per;
  }

  __device__ size_t movePacks(int mode, const T* src, T* dst, const T* rb, T* sb, size_t nelem, bool pre, bool post) const {
    switch (mode) {
      case N4J_SEND | N4J_SRC: return movePacks<N4J_SEND | N4J_SRC>(src, dst, rb, sb, nelem, pre, post);
      case N4J_RECV | N4J_DST: return movePacks<N4J_RECV | N4J_DST>(src, dst, rb, sb, nelem, pre, post);
      case N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_SEND:
        return movePacks<N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_SEND>(src, dst, rb, sb, nelem, pre, post);
      case N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST:
        return movePacks<N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST>(src, dst, rb, sb, nelem, pre, post);
      case N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST | N4J_SEND:
        return movePacks<N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST | N4J_SEND>(src, dst, rb, sb, nelem, pre, post);
      case N4J_RECV | N4J_DST | N4J_SEND: return movePacks<N4J_RECV | N4J_DST | N4J_SEND>(src, dst, rb, sb, nelem, pre, post);
      case N4J_SRC | N4J_DST | N4J_SEND: return movePacks<N4J_SRC | N4J_DST | N4J_SEND>(src, dst, rb, sb, nelem, pre, post);
    }
    return 0;
  }

  __device__ void move(int mode, const T* src, T* dst, const T* const* rb, T* const* sb, size_t nelem, bool pre,
                       bool post) {
    size_t head = 0;
    if (B::L.nrecv <= 1 && B::L.nsend <= 1) {
      head = movePacks(mode, src, dst, (mode & N4J_RECV) ? rb[0] : nullptr, (mode & N4J_SEND) ? sb[0] : nullptr,
                       nelem, pre, post);
    }
    // Element by element: misaligned data, the tail, and several receivers or senders (a tree node
    // with children), which reduce in order and send the same value to each.
    for (size_t i = head + threadIdx.x; i < nelem; i += blockDim.x) {
      T r, s;
      if (mode & N4J_RECV) r = N4J_LOAD_CG(rb[0] + i);
      if (mode & N4J_SRC) s = src[i];
      T v = out<T>(mode, r, s, rb, i, pre, post);
      if (mode & N4J_DST) dst[i] = v;
      if (mode & N4J_SEND) {
        for (int j = 0; j < B::L.nsend; j++) sb[j][i] = v;
      }
    }
  }

  // Not inlined: one copy per type and reduction serves every call site and kernel (compile time).
  __device__ __noinline__ void run(int mode, const T* src, T* dst, size_t nelem, bool pre, bool post) {
    if (B::aborted) return;
    size_t bytes = nelem * sizeof(T);
    size_t slices = bytes == 0 ? 1 : (bytes + sliceBytes - 1) / sliceBytes;
    size_t done = 0;
    for (size_t k = 0; k < slices; k++) {
      size_t n = sliceBytes < bytes - done ? sliceBytes : bytes - done;
      if (threadIdx.x == 0) {
        bool ok = true;
        if (mode & N4J_RECV) {
          B::announceRecvs(N4J_PROTO_SIMPLE);
          for (int i = 0; ok && i < B::L.nrecv; i++) ok = B::waitAtLeast(B::L.recv[i]->tail, B::recvStep[i] + 1);
        }
        if (ok && (mode & N4J_SEND)) B::waitCredit(N4J_PROTO_SIMPLE, n);
      }
      __syncthreads();
      if (B::stopped()) return;
      const T* rb[N4J_MAX_FAN];
      T* sb[N4J_MAX_FAN];
      for (int i = 0; i < B::L.nrecv; i++) rb[i] = reinterpret_cast<const T*>(B::recvSlot(i, N4J_PROTO_SIMPLE));
      for (int j = 0; j < B::L.nsend; j++) sb[j] = reinterpret_cast<T*>(B::sendSlot(j, N4J_PROTO_SIMPLE));
      size_t e = done / sizeof(T);
      move(mode, src == nullptr ? nullptr : src + e, dst == nullptr ? nullptr : dst + e, rb, sb, n / sizeof(T), pre,
           post);
      // Every thread's slot writes (a peer reads them) and slot reads (the peer overwrites the slot
      // once it sees our head) are done before thread 0 publishes.
      __threadfence_system();
      __syncthreads();
      if (threadIdx.x == 0) {
        if (mode & N4J_SEND) {
          for (int j = 0; j < B::L.nsend; j++) *B::L.send[j]->tail = B::sendStep[j] + 1;
        }
        if (mode & N4J_RECV) B::postHeads();
      }
      B::advance(mode);
      done += n;
    }
  }
};
