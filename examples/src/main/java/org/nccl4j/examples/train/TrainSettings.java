package org.nccl4j.examples.train;

/**
 * What {@code nccl4j train} trains and how.
 *
 * @param epochs   passes over the data
 * @param batch    samples per rank per step (the global batch is this times the ranks)
 * @param lr       learning rate
 * @param momentum SGD momentum (0 for plain SGD)
 * @param hidden   width of each of the two hidden layers
 * @param samples  size of the data set, split evenly over the ranks
 * @param seed     seed of the data set, the initial weights and the shuffles
 * @param diverge  test hook: the last rank nudges one weight before its digest, which the
 *                 launcher must then report as different
 * @param onDevice whether the collectives run on the communicator's device memory
 *                 ({@code --device cuda}): the gradients are copied there and back each step
 * @param killRank the rank that is SIGKILLed at the start of {@code killEpoch}, the others then
 *                 shrinking the communicator and carrying on; -1 for none
 * @param killEpoch the epoch at whose start it dies
 */
public record TrainSettings(int epochs, int batch, float lr, float momentum, int hidden, int samples, long seed,
                            boolean diverge, boolean onDevice, int killRank, int killEpoch) {
    /** The exit code of a JVM killed by SIGKILL, as its parent sees it. */
    public static final int KILLED_EXIT = 137;

    /**
     * @throws IllegalArgumentException naming a value out of range
     */
    public TrainSettings {
        if (epochs < 1 || batch < 1 || hidden < 1 || samples < 1) {
            throw new IllegalArgumentException("epochs, batch, hidden and samples must be at least 1");
        }
        if (!(lr > 0) || momentum < 0 || momentum >= 1) {
            throw new IllegalArgumentException("lr must be positive and momentum in [0, 1)");
        }
        if (killRank == 0 || killRank < -1) {
            throw new IllegalArgumentException("--kill-rank " + killRank + ": name a rank other than 0 (rank 0 prints the "
                    + "report)");
        }
        if (killRank > 0 && (killEpoch < 1 || killEpoch > epochs)) {
            throw new IllegalArgumentException("--kill-epoch " + killEpoch + " is not one of the epochs 1 to " + epochs);
        }
    }
}
