package org.nccl4j.core.device;

/**
 * One end of a network connection a device backend asks nccl-core for: the channel, the rank at
 * the other end and the direction. The peer must ask for the opposite end.
 *
 * @param channel the channel (NET device {@code channel % devices}, as the host engine's)
 * @param peer    the rank at the other end
 * @param send    whether this end sends
 */
public record DeviceNetLink(int channel, int peer, boolean send) {
}
