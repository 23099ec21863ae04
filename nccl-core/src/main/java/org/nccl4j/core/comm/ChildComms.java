package org.nccl4j.core.comm;

import org.nccl4j.CommConfig;

/**
 * Builds the communicators a communicator derives ({@code ncclCommSplit}, {@code ncclCommShrink}):
 * init's work, which depends on this package, so init hands its implementation to each
 * communicator it creates.
 */
public interface ChildComms {
    /**
     * @param parent the communicator being split (healthy; every rank calls)
     * @param color  this rank's color, or {@link org.nccl4j.Communicator#SPLIT_NOCOLOR}
     * @param key    this rank's key
     * @param config the child's settings
     * @return this rank's new communicator, or {@code null} without a color
     */
    CoreCommunicator split(CoreCommunicator parent, int color, int key, CommConfig config);

    /**
     * @param parent   the communicator some ranks of which are left out (it may have failed)
     * @param excluded the ranks left out, validated: sorted, distinct, in range, not this rank
     * @param config   the child's settings
     * @return this rank's new communicator
     */
    CoreCommunicator shrink(CoreCommunicator parent, int[] excluded, CommConfig config);
}
