// NCCL's Tree AllReduce for one channel (all_reduce.h's runTreeUpDown of NCCL 2.10.3) over any
// protocol's primitives: every chunk is reduced from the leaves up to the root, then broadcast
// from the root back down, the host backend's org.nccl4j.core.kernel.TreeKernels step for step,
// with the chunk nccl-core planned (Chunks.tree). Children are reduced in the channel's order.
#pragma once

#include "ring.h"

template <template <typename, typename> class PR> struct n4j_tree_all_reduce {
  template <typename T, typename Red> static __device__ void run(const n4j_coll_args* a, int* sAbort) {
    const n4j_channel& ch = a->channels[blockIdx.x];
    const bool root = ch.treeUp < 0, leaf = ch.nTreeDown == 0;
    n4j_links up = {}, down = {};
    for (int i = 0; i < ch.nTreeDown; i++) {
      up.recv[i] = &ch.downRecv[i];
      down.send[i] = &ch.downSend[i];
    }
    up.nrecv = down.nsend = ch.nTreeDown;
    if (!root) {
      up.send[0] = &ch.upSend;
      down.recv[0] = &ch.upRecv;
      up.nsend = down.nrecv = 1;
    }
    PR<T, Red> pu(up, *a, sAbort);
    PR<T, Red> pd(down, *a, sAbort);
    const T* in = static_cast<const T*>(a->sendbuff);
    T* out = static_cast<T*>(a->recvbuff);
    const size_t count = a->count, chunk = a->chunk;
    const size_t loop = (size_t)a->nChannels * chunk;
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t off = grid + blockIdx.x * chunk;
      size_t nelem = n4j_clamp(chunk, off, count);
      if (root) {
        pu.recvReduceCopy(in + off, out + off, nelem, true);
      } else if (leaf) {
        pu.send(in + off, nelem);
      } else {
        pu.recvReduceSend(in + off, nelem);
      }
    }
    for (size_t grid = 0; grid < count; grid += loop) {
      size_t off = grid + blockIdx.x * chunk;
      size_t nelem = n4j_clamp(chunk, off, count);
      if (root) {
        pd.sendRaw(out + off, nelem);
      } else if (leaf) {
        pd.recv(out + off, nelem);
      } else {
        pd.recvCopySend(out + off, nelem);
      }
    }
    pu.save();
    pd.save();
  }
};
