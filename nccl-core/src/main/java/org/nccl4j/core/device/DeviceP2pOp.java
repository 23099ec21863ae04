package org.nccl4j.core.device;

import org.nccl4j.DeviceBuffer;

/**
 * One send or receive on device memory, checked by the communicator before the backend sees it:
 * the buffer is this device's and holds {@code bytes}, {@code peer} is a rank (this one for a
 * send to self, which the group pairs with a receive from self).
 *
 * @param send  whether it sends
 * @param buf   source of a send, destination of a receive
 * @param bytes bytes to move (count x type size)
 * @param peer  the other rank
 */
public record DeviceP2pOp(boolean send, DeviceBuffer buf, long bytes, int peer) {
}
