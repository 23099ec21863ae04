// NCCL's ring algorithms (all_reduce.h, all_gather.h, reduce_scatter.h, broadcast.h, reduce.h of
// NCCL 2.10.3) for one channel over the Simple primitives: the step sequences of the host
// backend's org.nccl4j.core.kernel.RingKernels, with the same chunking (Chunks.ring), so both
// backends split data identically. ring[k] is the rank at distance k after this one.
#pragma once

#include "prims_simple.h"

// Simple: steps per chunk of AllReduce, ReduceScatter and AllGather (NCCL's *_CHUNKSTEPS).
#define N4J_SIMPLE_CHUNK_STEPS 4

struct n4j_split {
  int nChannels, bid;
  size_t chunk, align;
  __device__ n4j_split(const n4j_coll_args& a, size_t unit, bool manySteps)
      : nChannels(a.nChannels), bid(blockIdx.x),
        chunk((manySteps ? N4J_SIMPLE_CHUNK_STEPS : 1) * (a.stepBytes / unit)),
        align(64 / unit > 1 ? 64 / unit : 1) {}
  __device__ size_t realChunk(size_t remaining, size_t parts) const {
    size_t c = remaining / parts + (remaining % parts != 0);
    if (chunk < c) c = chunk;
    c = (c + align - 1) / align * align;
    return c > align ? c : align;
  }
};

N4J_DEVICE size_t n4j_clamp(size_t chunk, size_t off, size_t count) {
  return off >= count ? 0 : (chunk < count - off ? chunk : count - off);
}

template <typename T, typename Red> struct n4j_ring_all_reduce {
  static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    n4j_prims<T, Red> p(ch, *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int* ring = ch.ring;
    const size_t count = a->count;
    n4j_split s(*a, sizeof(T), true);
    const size_t loop = (size_t)n * s.nChannels * s.chunk;
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t real = s.realChunk(count - grid, (size_t)n * s.nChannels);
      auto off = [&](int c) { return grid + ((size_t)s.bid * n + c) * real; };
      size_t o = off(ring[n - 1]);
      p.send(in + o, n4j_clamp(real, o, count));
      for (int j = 2; j < n; j++) {
        o = off(ring[n - j]);
        p.recvReduceSend(in + o, n4j_clamp(real, o, count));
      }
      o = off(ring[0]);
      p.recvReduceCopySend(in + o, out + o, n4j_clamp(real, o, count), true);
      for (int j = 1; j < n - 1; j++) {
        o = off(ring[n - j]);
        p.recvCopySend(out + o, n4j_clamp(real, o, count));
      }
      o = off(ring[1]);
      p.recv(out + o, n4j_clamp(real, o, count));
    }
    p.save();
  }
};

template <typename T, typename Red> struct n4j_ring_reduce_scatter {
  static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    n4j_prims<T, Red> p(ch, *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int* ring = ch.ring;
    const size_t count = a->count;
    n4j_split s(*a, sizeof(T), true);
    const size_t loop = (size_t)s.nChannels * s.chunk;
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t real = s.realChunk(count - grid, s.nChannels);
      size_t off = grid + s.bid * real;
      size_t nelem = n4j_clamp(real, off, count);
      p.send(in + (size_t)ring[n - 1] * count + off, nelem);
      for (int j = 2; j < n; j++) p.recvReduceSend(in + (size_t)ring[n - j] * count + off, nelem);
      p.recvReduceCopy(in + (size_t)ring[0] * count + off, out + off, nelem, true);
    }
    p.save();
  }
};

template <typename T, typename Red> struct n4j_ring_reduce {
  static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    n4j_prims<T, Red> p(ch, *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int rank = ch.ring[0], prev = ch.ring[n - 1];
    const size_t count = a->count;
    n4j_split s(*a, sizeof(T), false);
    const size_t loop = (size_t)s.nChannels * s.chunk;
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t real = s.realChunk(count - grid, s.nChannels);
      size_t off = grid + s.bid * real;
      size_t nelem = n4j_clamp(real, off, count);
      if (prev == a->root) {
        p.send(in + off, nelem);
      } else if (rank == a->root) {
        p.recvReduceCopy(in + off, out + off, nelem, true);
      } else {
        p.recvReduceSend(in + off, nelem);
      }
    }
    p.save();
  }
};

// Byte collectives: T is uint8_t and counts are bytes; the reduction type is never applied.
typedef n4j_int_red<uint8_t, uint8_t, N4J_SUM> n4j_bytes;

N4J_DEVICE void n4j_ring_broadcast(const n4j_coll_args* a, int* sAbort) {
  const n4j_channel& ch = a->channels[blockIdx.x];
  n4j_prims<uint8_t, n4j_bytes> p(ch, *a, sAbort);
  const uint8_t* in = static_cast<const uint8_t*>(a->sendbuff);
  uint8_t* out = static_cast<uint8_t*>(a->recvbuff);
  const int rank = ch.ring[0], next = ch.ring[1];
  const size_t count = a->count;
  const bool inPlace = rank == a->root && (const void*)in == (const void*)out;
  n4j_split s(*a, 1, false);
  const size_t loop = (size_t)s.nChannels * s.chunk;
  for (size_t grid = 0; grid < count; grid += loop) {
    size_t real = s.realChunk(count - grid, s.nChannels);
    size_t off = grid + s.bid * real;
    size_t nelem = n4j_clamp(real, off, count);
    if (rank == a->root) {
      if (inPlace) {
        p.sendRaw(in + off, nelem);
      } else {
        p.copySend(in + off, out + off, nelem);
      }
    } else if (next == a->root) {
      p.recv(out + off, nelem);
    } else {
      p.recvCopySend(out + off, nelem);
    }
  }
  p.save();
}

N4J_DEVICE void n4j_ring_all_gather(const n4j_coll_args* a, int* sAbort) {
  const n4j_channel& ch = a->channels[blockIdx.x];
  n4j_prims<uint8_t, n4j_bytes> p(ch, *a, sAbort);
  const uint8_t* in = static_cast<const uint8_t*>(a->sendbuff);
  uint8_t* out = static_cast<uint8_t*>(a->recvbuff);
  const int n = a->nranks;
  const int* ring = ch.ring;
  const size_t count = a->count;  // bytes per rank
  const bool inPlace = (const void*)in == (const void*)(out + (size_t)ring[0] * count);
  n4j_split s(*a, 1, true);
  const size_t loop = (size_t)s.nChannels * s.chunk;
  for (size_t grid = 0; grid < count; grid += loop) {
    size_t real = s.realChunk(count - grid, s.nChannels);
    size_t off = grid + s.bid * real;
    size_t nelem = n4j_clamp(real, off, count);
    if (inPlace) {
      p.sendRaw(out + (size_t)ring[0] * count + off, nelem);
    } else {
      p.copySend(in + off, out + (size_t)ring[0] * count + off, nelem);
    }
    for (int j = 1; j < n - 1; j++) p.recvCopySend(out + (size_t)ring[n - j] * count + off, nelem);
    p.recv(out + (size_t)ring[1] * count + off, nelem);
  }
  p.save();
}
