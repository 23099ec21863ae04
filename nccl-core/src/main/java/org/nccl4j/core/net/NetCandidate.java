package org.nccl4j.core.net;

/**
 * One network candidate's fate in initNet.
 *
 * @param name     the network's name
 * @param priority its provider's priority
 * @param status   {@code chosen}, or why it was refused or skipped
 */
public record NetCandidate(String name, int priority, String status) {
    @Override
    public String toString() {
        return name + " (" + status + ")";
    }
}
