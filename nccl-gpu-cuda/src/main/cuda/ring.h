// NCCL's ring algorithms (all_reduce.h, all_gather.h, reduce_scatter.h, broadcast.h, reduce.h of
// NCCL 2.10.3) for one channel over any protocol's primitives (PR): the step sequences of the
// host backend's org.nccl4j.core.kernel.RingKernels, with the chunking nccl-core planned for the
// call (chunk, align, interleaved: Chunks.ring), so both backends split data identically.
// ring[k] is the rank at distance k after this one.
#pragma once

#include "prims_ll.h"
#include "prims_ll128.h"
#include "prims_simple.h"

struct n4j_split {
  int nChannels, bid;
  size_t chunk, align;
  bool interleaved;
  __device__ n4j_split(const n4j_coll_args& a)
      : nChannels(a.nChannels), bid(blockIdx.x), chunk(a.chunk), align(a.align), interleaved(a.interleaved != 0) {}
  __device__ size_t realChunk(size_t remaining, size_t parts) const {
    size_t c = remaining / parts + (remaining % parts != 0);
    if (chunk < c) c = chunk;
    c = (c + align - 1) / align * align;
    return c > align ? c : align;
  }
  // Offset of AllReduce chunk c in the loop starting at grid (NCCL's calcOffset).
  __device__ size_t offset(size_t grid, int c, int nranks, size_t real) const {
    return interleaved ? grid + ((size_t)c * nChannels + bid) * real : grid + ((size_t)bid * nranks + c) * real;
  }
};

N4J_DEVICE size_t n4j_clamp(size_t chunk, size_t off, size_t count) {
  return off >= count ? 0 : (chunk < count - off ? chunk : count - off);
}

// The ring's links: receive from ring[nranks-1], send to ring[1].
N4J_DEVICE n4j_links n4j_ring_links(const n4j_channel& ch) {
  n4j_links l = {};
  l.recv[0] = &ch.ringRecv;
  l.send[0] = &ch.ringSend;
  l.nrecv = 1;
  l.nsend = 1;
  return l;
}

template <template <typename, typename> class PR> struct n4j_ring_all_reduce {
  template <typename T, typename Red> static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    PR<T, Red> p(n4j_ring_links(ch), *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int* ring = ch.ring;
    const size_t count = a->count;
    n4j_split s(*a);
    const size_t loop = (size_t)n * s.nChannels * s.chunk;
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t real = s.realChunk(count - grid, (size_t)n * s.nChannels);
      size_t o = s.offset(grid, ring[n - 1], n, real);
      p.send(in + o, n4j_clamp(real, o, count));
      for (int j = 2; j < n; j++) {
        o = s.offset(grid, ring[n - j], n, real);
        p.recvReduceSend(in + o, n4j_clamp(real, o, count));
      }
      o = s.offset(grid, ring[0], n, real);
      p.recvReduceCopySend(in + o, out + o, n4j_clamp(real, o, count), true);
      for (int j = 1; j < n - 1; j++) {
        o = s.offset(grid, ring[n - j], n, real);
        p.recvCopySend(out + o, n4j_clamp(real, o, count));
      }
      o = s.offset(grid, ring[1], n, real);
      p.recv(out + o, n4j_clamp(real, o, count));
    }
    p.save();
  }
};

template <template <typename, typename> class PR> struct n4j_ring_reduce_scatter {
  template <typename T, typename Red> static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    PR<T, Red> p(n4j_ring_links(ch), *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int* ring = ch.ring;
    const size_t count = a->count;
    n4j_split s(*a);
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

template <template <typename, typename> class PR> struct n4j_ring_reduce {
  template <typename T, typename Red> static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    PR<T, Red> p(n4j_ring_links(ch), *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const int n = a->nranks;
    const int rank = ch.ring[0], prev = ch.ring[n - 1];
    const size_t count = a->count;
    n4j_split s(*a);
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

// Byte collectives: T is uint8_t and counts are bytes; the reduction is never applied.
typedef n4j_int_red<uint8_t, uint8_t> n4j_bytes;

template <template <typename, typename> class PR> struct n4j_ring_broadcast {
  static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    PR<uint8_t, n4j_bytes> p(n4j_ring_links(ch), *a, sAbort);
    const uint8_t* in = static_cast<const uint8_t*>(a->sendbuff);
    uint8_t* out = static_cast<uint8_t*>(a->recvbuff);
    const int rank = ch.ring[0], next = ch.ring[1];
    const size_t count = a->count;
    const bool inPlace = rank == a->root && (const void*)in == (const void*)out;
    n4j_split s(*a);
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
};

template <template <typename, typename> class PR> struct n4j_ring_all_gather {
  static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    PR<uint8_t, n4j_bytes> p(n4j_ring_links(ch), *a, sAbort);
    const uint8_t* in = static_cast<const uint8_t*>(a->sendbuff);
    uint8_t* out = static_cast<uint8_t*>(a->recvbuff);
    const int n = a->nranks;
    const int* ring = ch.ring;
    const size_t count = a->count;  // bytes per rank
    const bool inPlace = (const void*)in == (const void*)(out + (size_t)ring[0] * count);
    n4j_split s(*a);
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
};
