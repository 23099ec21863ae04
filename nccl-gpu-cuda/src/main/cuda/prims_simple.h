// The Simple protocol's primitives for one channel (one block), written for nccl4j from reading
// NCCL 2.10.3's prims_simple.h: each call moves a chunk in slices of one FIFO step. Thread 0 waits
// for data (the receiver's tail) and credit (the sender's head), the block moves or reduces the
// slice, thread 0 publishes. The slicing and step counts are exactly the host backend's
// (org.nccl4j.core.kernel.Prims), so a slice of n bytes costs one step on both ends, an empty
// call one empty step. Data taken from the rank's own input goes through the pre-op (AVG on
// floats), a fully reduced value through the post-op (AVG on integers).
#pragma once

#include "reduce_ops.h"

enum { N4J_RECV = 1, N4J_SEND = 2, N4J_REDUCE = 4, N4J_SRC = 8, N4J_DST = 16 };

// 16 bytes seen as elements of T.
template <typename T> union n4j_pack {
  uint4 v;
  T e[16 / sizeof(T)];
};

template <typename T, typename Red> struct n4j_prims {
  const Red red;
  const n4j_channel& ch;
  volatile int* abortFlag;
  int* sAbort;               // shared: set by thread 0 when the abort flag was seen
  uint64_t sendStep, recvStep;
  size_t stepBytes, sliceBytes;
  bool aborted;

  __device__ n4j_prims(const n4j_channel& c, const n4j_coll_args& a, int* sharedAbort)
      : red(a.nranks), ch(c), abortFlag(a.abortFlag), sAbort(sharedAbort), sendStep(*c.send.step),
        recvStep(*c.recv.step), stepBytes(a.stepBytes), sliceBytes(a.stepBytes / sizeof(T) * sizeof(T)),
        aborted(false) {}

  // Stores the step counts for the next launch (not after an abort: the communicator is then unusable).
  __device__ void save() {
    if (threadIdx.x == 0 && !aborted) {
      *ch.send.step = sendStep;
      *ch.recv.step = recvStep;
    }
  }

  __device__ void send(const T* src, size_t n) { run(N4J_SEND | N4J_SRC, src, nullptr, n, true, false); }
  __device__ void sendRaw(const T* src, size_t n) { run(N4J_SEND | N4J_SRC, src, nullptr, n, false, false); }
  __device__ void recv(T* dst, size_t n) { run(N4J_RECV | N4J_DST, nullptr, dst, n, false, false); }
  __device__ void recvReduceSend(const T* src, size_t n) {
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_SEND, src, nullptr, n, true, false);
  }
  __device__ void recvReduceCopy(const T* src, T* dst, size_t n, bool post) {
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST, src, dst, n, true, post);
  }
  __device__ void recvReduceCopySend(const T* src, T* dst, size_t n, bool post) {
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST | N4J_SEND, src, dst, n, true, post);
  }
  __device__ void recvCopySend(T* dst, size_t n) { run(N4J_RECV | N4J_DST | N4J_SEND, nullptr, dst, n, false, false); }
  __device__ void copySend(const T* src, T* dst, size_t n) {
    run(N4J_SRC | N4J_DST | N4J_SEND, src, dst, n, false, false);
  }

 private:
  // Thread 0 only: spins until *p >= target, reading the abort flag every N4J_ABORT_CHECK_SPINS.
  __device__ void waitAtLeast(volatile uint64_t* p, uint64_t target) {
    int spins = 0;
    while (*p < target) {
      if (++spins == N4J_ABORT_CHECK_SPINS) {
        spins = 0;
        if (*abortFlag) {
          *sAbort = 1;
          return;
        }
      }
    }
  }

  __device__ T element(int mode, const T* src, const T* rbuf, size_t i, bool pre, bool post) const {
    if (mode & N4J_REDUCE) {
      T own = src[i];
      if (pre && Red::kPre) own = red.pre(own);
      T v = red.apply(N4J_LOAD_CG(rbuf + i), own);
      return post && Red::kPost ? red.post(v) : v;
    }
    if (mode & N4J_RECV) return N4J_LOAD_CG(rbuf + i);
    return pre && Red::kPre ? red.pre(src[i]) : src[i];
  }

  // One pack of the output from the received pack r and the own pack s.
  __device__ n4j_pack<T> combine(int mode, const n4j_pack<T>& r, const n4j_pack<T>& s, bool pre, bool post) const {
    const int per = 16 / sizeof(T);
    n4j_pack<T> o;
#pragma unroll
    for (int k = 0; k < per; k++) {
      if (mode & N4J_REDUCE) {
        T own = pre && Red::kPre ? red.pre(s.e[k]) : s.e[k];
        T v = red.apply(r.e[k], own);
        o.e[k] = post && Red::kPost ? red.post(v) : v;
      } else if (mode & N4J_RECV) {
        o.e[k] = r.e[k];
      } else {
        o.e[k] = pre && Red::kPre ? red.pre(s.e[k]) : s.e[k];
      }
    }
    return o;
  }

  __device__ void move(int mode, const T* src, T* dst, const T* rbuf, T* sbuf, size_t nelem, bool pre, bool post) {
    const size_t per = 16 / sizeof(T);
    uintptr_t mis = (uintptr_t)rbuf | (uintptr_t)sbuf | (uintptr_t)src | (uintptr_t)dst;
    size_t head = 0;
    if ((mis & 15) == 0) {
      // 16-byte packs while every pointer is aligned (slots are; chunk offsets are multiples of
      // 64 bytes), N4J_UNROLL of them per thread loaded before any is used, so that several
      // loads per thread are in flight.
      const size_t packs = nelem / per;
      const size_t step = (size_t)blockDim.x * N4J_UNROLL;
      size_t p0 = threadIdx.x;
      for (; p0 + (N4J_UNROLL - 1) * blockDim.x < packs; p0 += step) {
        n4j_pack<T> r[N4J_UNROLL], s[N4J_UNROLL];
#pragma unroll
        for (int u = 0; u < N4J_UNROLL; u++) {
          size_t p = p0 + u * blockDim.x;
          if (mode & N4J_RECV) r[u].v = N4J_LOAD_CG(reinterpret_cast<const uint4*>(rbuf) + p);
          if (mode & N4J_SRC) s[u].v = reinterpret_cast<const uint4*>(src)[p];
        }
#pragma unroll
        for (int u = 0; u < N4J_UNROLL; u++) {
          n4j_pack<T> o = combine(mode, r[u], s[u], pre, post);
          size_t p = p0 + u * blockDim.x;
          if (mode & N4J_DST) reinterpret_cast<uint4*>(dst)[p] = o.v;
          if (mode & N4J_SEND) reinterpret_cast<uint4*>(sbuf)[p] = o.v;
        }
      }
      for (size_t p = p0; p < packs; p += blockDim.x) {
        n4j_pack<T> r, s;
        if (mode & N4J_RECV) r.v = N4J_LOAD_CG(reinterpret_cast<const uint4*>(rbuf) + p);
        if (mode & N4J_SRC) s.v = reinterpret_cast<const uint4*>(src)[p];
        n4j_pack<T> o = combine(mode, r, s, pre, post);
        if (mode & N4J_DST) reinterpret_cast<uint4*>(dst)[p] = o.v;
        if (mode & N4J_SEND) reinterpret_cast<uint4*>(sbuf)[p] = o.v;
      }
      head = packs * per;
    }
    for (size_t i = head + threadIdx.x; i < nelem; i += blockDim.x) {
      T v = element(mode, src, rbuf, i, pre, post);
      if (mode & N4J_DST) dst[i] = v;
      if (mode & N4J_SEND) sbuf[i] = v;
    }
  }

  __device__ void run(int mode, const T* src, T* dst, size_t nelem, bool pre, bool post) {
    if (aborted) return;
    size_t bytes = nelem * sizeof(T);
    size_t slices = bytes == 0 ? 1 : (bytes + sliceBytes - 1) / sliceBytes;
    size_t done = 0;
    for (size_t k = 0; k < slices; k++) {
      size_t n = sliceBytes < bytes - done ? sliceBytes : bytes - done;
      if (threadIdx.x == 0) {
        if (mode & N4J_RECV) waitAtLeast(ch.recv.tail, recvStep + 1);
        if ((mode & N4J_SEND) && *sAbort == 0 && sendStep + 1 > N4J_STEPS) {
          waitAtLeast(ch.send.head, sendStep + 1 - N4J_STEPS);
        }
      }
      __syncthreads();
      if (*sAbort) {
        aborted = true;
        return;
      }
      const T* rbuf = reinterpret_cast<const T*>(ch.recv.buff + (recvStep % N4J_STEPS) * stepBytes);
      T* sbuf = reinterpret_cast<T*>(ch.send.buff + (sendStep % N4J_STEPS) * stepBytes);
      size_t e = done / sizeof(T);
      move(mode, src == nullptr ? nullptr : src + e, dst == nullptr ? nullptr : dst + e, rbuf, sbuf,
           n / sizeof(T), pre, post);
      // Every thread's slot writes (a peer reads them) and slot reads (the peer overwrites the slot
      // once it sees our head) are done before thread 0 publishes.
      __threadfence_system();
      __syncthreads();
      if (threadIdx.x == 0) {
        if (mode & N4J_SEND) *ch.send.tail = sendStep + 1;
        if (mode & N4J_RECV) *ch.recv.head = recvStep + 1;
      }
      if (mode & N4J_SEND) sendStep++;
      if (mode & N4J_RECV) recvStep++;
      done += n;
    }
  }
};
