package org.nccl4j.core.enqueue;

import org.nccl4j.Stream;
import org.nccl4j.core.device.DeviceCollOp;
import org.nccl4j.core.device.DeviceP2pOp;

/** A checked device operation waiting in its group for groupEnd: a collective or a send/receive. */
record DevicePending(EnqueueTarget comm, Stream stream, DeviceCollOp coll, DeviceP2pOp p2p,
                     GroupCompletion completion) {
}
