package org.nccl4j.core.op;

import java.lang.foreign.MemorySegment;

/**
 * One send or receive after its arguments were checked.
 *
 * @param send  whether it sends
 * @param buf   the buffer
 * @param bytes bytes to move
 * @param peer  the other rank
 */
public record P2pOp(boolean send, MemorySegment buf, long bytes, int peer) {
}
