// Send/Recv for nccl4j over the Simple primitives, written for nccl4j from reading NCCL 2.10.3's
// sendrecv.h and enqueue.cc (p2p scheduling). A group's sends and receives run in one launch:
// each block is one lane, the transfers to (or from) one peer in call order, over that peer's own
// connection (PeerChannels.java), not the rings'. Every lane of the group runs at once, as the
// host backend's P2pKernel polls every connection, so no ordering of peers can deadlock. A
// transfer moves in whole FIFO slots, an empty one as one empty step: the host backend's steps.
#pragma once

#include <stddef.h>

#include "ring.h"

#if defined(__HIPCC__)
#define N4J_GRID_CONSTANT
#else
// The argument block is read where it lies (the kernel parameter space), not copied per thread.
#define N4J_GRID_CONSTANT __grid_constant__
#endif

// Lanes (blocks) and transfers one launch carries (P2pArgs.java mirrors both).
#define N4J_P2P_MAX_LANES 64
#define N4J_P2P_MAX_OPS 448

struct n4j_p2p_lane {
  int channel;  // index into conns: 2 * peer sends to it, 2 * peer + 1 receives from it
  int first;    // first transfer in ops
  int count;    // transfers, in call order
  int send;     // 1: sends, 0: receives
};

struct n4j_p2p_op {
  void* buff;      // source of a send, destination of a receive
  uint64_t bytes;
};

// The launch's argument block, packed by P2pArgs.java.
struct n4j_p2p_args {
  struct n4j_conn* conns;     // per peer, a sending and a receiving connection
  volatile int* abortFlag;
  int nranks;
  int stepBytes;
  int nLanes;
  int nOps;
  struct n4j_p2p_lane lanes[N4J_P2P_MAX_LANES];
  struct n4j_p2p_op ops[N4J_P2P_MAX_OPS];
};

// P2pArgs.java packs these offsets; a change here must change it too.
static_assert(sizeof(n4j_p2p_lane) == 16 && sizeof(n4j_p2p_op) == 16, "P2pArgs lane and op sizes");
static_assert(offsetof(n4j_p2p_args, lanes) == 32, "P2pArgs.HEADER_BYTES");
static_assert(sizeof(n4j_p2p_args) == 32 + 16 * N4J_P2P_MAX_LANES + 16 * N4J_P2P_MAX_OPS, "P2pArgs.BYTES");

N4J_DEVICE void n4j_p2p_lane_run(const n4j_p2p_args& a, int* sAbort) {
  const n4j_p2p_lane& lane = a.lanes[blockIdx.x];
  // The primitives read the abort flag, rank count and slot size from a collective's arguments.
  n4j_coll_args c = {};
  c.abortFlag = a.abortFlag;
  c.nranks = a.nranks;
  c.stepBytes = a.stepBytes;
  c.nChannels = 1;
  n4j_links l = {};
  if (lane.send) {
    l.send[0] = &a.conns[lane.channel];
    l.nsend = 1;
  } else {
    l.recv[0] = &a.conns[lane.channel];
    l.nrecv = 1;
  }
  n4j_prims_simple<uint8_t, n4j_bytes> p(l, c, sAbort);
  for (int k = 0; k < lane.count; k++) {
    const n4j_p2p_op& op = a.ops[lane.first + k];
    if (lane.send) {
      p.sendRaw(static_cast<const uint8_t*>(op.buff), op.bytes);
    } else {
      p.recv(static_cast<uint8_t*>(op.buff), op.bytes);
    }
  }
  p.save();
}
