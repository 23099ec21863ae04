package org.nccl4j.core.enqueue;

import org.nccl4j.core.stream.HostCompletion;
import org.nccl4j.core.stream.HostStream;
import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.op.P2pOp;

/**
 * An operation waiting for its launch.
 *
 * @param comm       its communicator
 * @param stream     its stream
 * @param coll       the collective, or {@code null}
 * @param p2p        the send/recv, or {@code null}
 * @param completion reports its outcome
 */
record Pending(EnqueueTarget comm, HostStream stream, CollOp coll, P2pOp p2p, HostCompletion completion) {
}
