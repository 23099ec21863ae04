package org.nccl4j.core.net;

import java.util.List;
import org.nccl4j.net.spi.Net;

/**
 * The outcome of initNet.
 *
 * @param net        the chosen network, initialised
 * @param devices    its device count
 * @param candidates every candidate, in the order tried, and what happened to it
 */
public record NetSelection(Net net, int devices, List<NetCandidate> candidates) {
}
