// What the three protocols' primitives share, written for nccl4j from reading NCCL 2.10.3's
// primitives.h: the step counts of the connections a primitive uses, credit and abort, and the
// element-wise work on a pack of elements. Every primitive (send, recv, recvReduceSend, ...) moves
// one chunk in slices of one FIFO step, exactly as the host backend's org.nccl4j.core.kernel.Prims,
// so that a slice of n bytes costs one step on both ends and an empty call one empty step. Data
// taken from the rank's own input goes through the pre-op (AVG on floats), a fully reduced value
// through the post-op (AVG on integers); received values are reduced in order, recv[0] first:
// v = apply(recv[k], ... apply(recv[0], own)).
#pragma once

#include "reduce_ops.h"

enum { N4J_RECV = 1, N4J_SEND = 2, N4J_REDUCE = 4, N4J_SRC = 8, N4J_DST = 16 };

// A pack P (uint4, uint64_t or T itself) seen as elements of T.
template <typename T, typename P> union n4j_packof {
  P v;
  T e[sizeof(P) / sizeof(T)];
};

template <typename T, typename Red, typename P> N4J_DEVICE P n4j_pack_pre(const Red& red, P x) {
  if (!red.kPre) return x;
  n4j_packof<T, P> a;
  a.v = x;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(P) / sizeof(T)); k++) a.e[k] = red.pre(a.e[k]);
  return a.v;
}

template <typename T, typename Red, typename P> N4J_DEVICE P n4j_pack_post(const Red& red, P x) {
  if (!red.kPost) return x;
  n4j_packof<T, P> a;
  a.v = x;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(P) / sizeof(T)); k++) a.e[k] = red.post(a.e[k]);
  return a.v;
}

// apply(r, acc) element by element: the received value first, as the host's reducers.
template <typename T, typename Red, typename P> N4J_DEVICE P n4j_pack_apply(const Red& red, P r, P acc) {
  n4j_packof<T, P> a, b;
  a.v = r;
  b.v = acc;
#pragma unroll
  for (int k = 0; k < (int)(sizeof(P) / sizeof(T)); k++) b.e[k] = red.apply(a.e[k], b.e[k]);
  return b.v;
}

// The outgoing pack from the first received pack r0 and the own pack s; further received packs
// are folded in by the caller with n4j_pack_apply, then the post-op.
template <typename T, typename Red, typename P>
N4J_DEVICE P n4j_pack_first(const Red& red, int mode, P r0, P s, bool pre) {
  if (mode & N4J_REDUCE) return n4j_pack_apply<T, Red, P>(red, r0, pre ? n4j_pack_pre<T, Red, P>(red, s) : s);
  if (mode & N4J_RECV) return r0;
  return pre ? n4j_pack_pre<T, Red, P>(red, s) : s;
}

// Up to 8 bytes at p (n of them; the rest read as zero), and back: the tails of LL and LL128 data.
N4J_DEVICE uint64_t n4j_load8(const char* p, int n, bool aligned) {
  if (n == 8 && aligned) return *reinterpret_cast<const uint64_t*>(p);
  uint64_t v = 0;
  for (int b = 0; b < n; b++) v |= (uint64_t)(uint8_t)p[b] << (8 * b);
  return v;
}
N4J_DEVICE void n4j_store8(char* p, uint64_t v, int n, bool aligned) {
  if (n == 8 && aligned) {
    *reinterpret_cast<uint64_t*>(p) = v;
    return;
  }
  for (int b = 0; b < n; b++) p[b] = (char)(v >> (8 * b));
}

template <typename T, typename Red> struct n4j_prims_base {
  const Red red;
  const n4j_links L;
  volatile int* abortFlag;
  int* sAbort;               // shared: set by a thread that saw the abort flag
  uint64_t recvStep[N4J_MAX_FAN], sendStep[N4J_MAX_FAN];
  int stepBytes;
  bool aborted;

  __device__ n4j_prims_base(const n4j_links& l, const n4j_coll_args& a, int* sharedAbort)
      : red(a.redop, a.nranks), L(l), abortFlag(a.abortFlag), sAbort(sharedAbort), stepBytes(a.stepBytes), aborted(false) {
    for (int i = 0; i < N4J_MAX_FAN; i++) {
      recvStep[i] = i < l.nrecv ? *l.recv[i]->step : 0;
      sendStep[i] = i < l.nsend ? *l.send[i]->step : 0;
    }
  }

  // Stores the step counts for the next launch (not after an abort: the communicator is then unusable).
  __device__ void save() {
    if (threadIdx.x == 0 && !aborted) {
      for (int i = 0; i < L.nrecv; i++) *L.recv[i]->step = recvStep[i];
      for (int j = 0; j < L.nsend; j++) *L.send[j]->step = sendStep[j];
    }
  }

  // Whether the abort flag is up; reads it (across PCIe) only every N4J_ABORT_CHECK_SPINS calls.
  __device__ bool abortSeen(int& spins) {
    if (++spins < N4J_ABORT_CHECK_SPINS) return false;
    spins = 0;
    if (*abortFlag) {
      *sAbort = 1;
      return true;
    }
    return false;
  }

  // Spins until *p >= target; false on abort.
  __device__ bool waitAtLeast(volatile uint64_t* p, uint64_t target) {
    int spins = 0;
    while (*p < target) {
      if (abortSeen(spins)) return false;
    }
    return true;
  }

  // Thread 0: a free slot at every receiver (NCCL's waitSend on the head); then, on a NET
  // connection, the step's size and (LL, LL128: the proxy then checks the lines' flags) its tag,
  // before any of its data.
  __device__ void waitCredit(int proto, size_t bytes) {
    for (int j = 0; j < L.nsend; j++) {
      if (sendStep[j] + 1 > N4J_STEPS && !waitAtLeast(L.send[j]->head, sendStep[j] + 1 - N4J_STEPS)) return;
      if (L.send[j]->sizes != nullptr) {
        const int slot = (int)(sendStep[j] % N4J_STEPS);
        L.send[j]->sizes[slot] = (int)n4j_wire_bytes(proto, bytes);
        if (proto != N4J_PROTO_SIMPLE) {
          __threadfence_system();
          L.send[j]->tags[slot] = n4j_tag(sendStep[j], proto);
        }
      }
    }
  }

  // Thread 0, before a step is read: on a NET connection, the step's tag (the proxy then posts
  // its receive into this protocol's slot); for LL and LL128 also the proxy's tail, since the
  // host writes a step's lines in no particular order and their flags count only once all are in.
  __device__ void announceRecvs(int proto) {
    bool net = false;
    for (int i = 0; i < L.nrecv; i++) {
      if (L.recv[i]->tags != nullptr) {
        L.recv[i]->tags[recvStep[i] % N4J_STEPS] = n4j_tag(recvStep[i], proto);
        net = true;
      }
    }
    if (!net) return;
    __threadfence_system();
    if (proto == N4J_PROTO_SIMPLE) return;  // its wait on the tail follows
    for (int i = 0; i < L.nrecv; i++) {
      if (L.recv[i]->tags != nullptr && !waitAtLeast(L.recv[i]->tail, recvStep[i] + 1)) return;
    }
  }

  // After a block barrier: whether a thread saw the abort flag (then the primitive stops for good).
  __device__ bool stopped() {
    if (*(volatile int*)sAbort) aborted = true;
    return aborted;
  }

  // Whether a send connection goes through the network (its proxy reads the step sizes).
  __device__ bool netSend() const {
    for (int j = 0; j < L.nsend; j++) {
      if (L.send[j]->sizes != nullptr) return true;
    }
    return false;
  }

  // Thread 0, after a block barrier that follows every line's flag and a system fence: the tail
  // of each NET send connection (LL128; Simple publishes its tail itself).
  __device__ void postNetTails() {
    if (threadIdx.x == 0) {
      for (int j = 0; j < L.nsend; j++) {
        if (L.send[j]->sizes != nullptr) *L.send[j]->tail = sendStep[j] + 1;
      }
    }
  }

  // Thread 0: the slots just read are free again (NCCL's postRecv).
  __device__ void postHeads() {
    if (threadIdx.x == 0) {
      for (int i = 0; i < L.nrecv; i++) *L.recv[i]->head = recvStep[i] + 1;
    }
  }

  __device__ void advance(int mode) {
    if (mode & N4J_RECV) {
      for (int i = 0; i < L.nrecv; i++) recvStep[i]++;
    }
    if (mode & N4J_SEND) {
      for (int j = 0; j < L.nsend; j++) sendStep[j]++;
    }
  }

  __device__ char* recvSlot(int i, int proto) const {
    return L.recv[i]->buffs[proto] + (recvStep[i] % N4J_STEPS) * (size_t)stepBytes;
  }
  __device__ char* sendSlot(int j, int proto) const {
    return L.send[j]->buffs[proto] + (sendStep[j] % N4J_STEPS) * (size_t)stepBytes;
  }
};

// The primitives' public calls, for any protocol's run(mode, src, dst, nelem, pre, post).
#define N4J_PRIMS_CALLS                                                                                       \
  __device__ void send(const T* src, size_t n) { run(N4J_SEND | N4J_SRC, src, nullptr, n, true, false); }      \
  __device__ void sendRaw(const T* src, size_t n) { run(N4J_SEND | N4J_SRC, src, nullptr, n, false, false); }  \
  __device__ void recv(T* dst, size_t n) { run(N4J_RECV | N4J_DST, nullptr, dst, n, false, false); }          \
  __device__ void recvReduceSend(const T* src, size_t n) {                                                    \
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_SEND, src, nullptr, n, true, false);                            \
  }                                                                                                           \
  __device__ void recvReduceCopy(const T* src, T* dst, size_t n, bool post) {                                 \
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST, src, dst, n, true, post);                                  \
  }                                                                                                           \
  __device__ void recvReduceCopySend(const T* src, T* dst, size_t n, bool post) {                             \
    run(N4J_RECV | N4J_REDUCE | N4J_SRC | N4J_DST | N4J_SEND, src, dst, n, true, post);                       \
  }                                                                                                           \
  __device__ void recvCopySend(T* dst, size_t n) { run(N4J_RECV | N4J_DST | N4J_SEND, nullptr, dst, n, false, false); } \
  __device__ void copySend(const T* src, T* dst, size_t n) {                                                  \
    run(N4J_SRC | N4J_DST | N4J_SEND, src, dst, n, false, false);                                             \
  }
