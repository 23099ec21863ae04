package org.nccl4j.core.kernel;

import org.nccl4j.core.transport.Conn;

/**
 * One channel's ring ({@code ncclChannel}): the ranks by distance from this one, and the
 * connections to the next and from the previous rank.
 *
 * @param id   channel id
 * @param ring {@code ring[k]} = the rank at distance k after this one ({@code ring[0]} = this rank)
 * @param send connection to {@code ring[1]}, or {@code null} with one rank
 * @param recv connection from {@code ring[n-1]}, or {@code null} with one rank
 */
public record Channel(int id, int[] ring, Conn send, Conn recv) {
}
