package org.nccl4j.examples.train;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import org.nccl4j.Communicator;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;

/**
 * One rank of data-parallel training (what PyTorch's DistributedDataParallel does, by hand).
 *
 * <p>Every rank builds the same data set from the seed and takes its own contiguous shard; the
 * initial weights are broadcast from rank 0. Each step a rank computes the mean gradient of its
 * mini-batch, the ranks average the gradients with one AllReduce(AVG) of the flat gradient
 * buffer, and every rank applies the same SGD-with-momentum update to its replica. Because the
 * AllReduce hands every rank the same bits, the replicas stay bit-identical: {@link #run()}
 * returns the digest of this rank's weights for whoever started the ranks to compare. Every
 * shard has the same size, so every rank takes the same number of steps and the collectives
 * match up. With {@link TrainSettings#onDevice()} the collectives run on device memory
 * ({@link DeviceArrays}): the arrays are copied to the GPU and back, the math stays on the CPU.
 *
 * <p>With {@link TrainSettings#killRank()} that rank SIGKILLs its own JVM at the start of
 * {@link TrainSettings#killEpoch()}; the others' next AllReduce fails, and they carry on as an
 * elastic training job would: they shrink the communicator to the ranks left (no new unique
 * id), go back to the weights of the epoch's start (every survivor has them; rank 0's are
 * broadcast, so the replicas are identical again whatever step each had reached), split the data
 * over the ranks left and redo the epoch.
 */
public final class Trainer {
    private static final int CLASSES = 3;

    /** The communicator; after a rank died, the one the survivors shrank it to (which this closes). */
    private Communicator comm;
    private ArrayCollectives coll;
    private final TrainSettings s;
    private final PrintStream out;

    /**
     * @param comm the communicator
     * @param s    what to train
     * @param out  where rank 0 prints; {@code null} on the other ranks
     */
    public Trainer(Communicator comm, TrainSettings s, PrintStream out) {
        this.comm = comm;
        this.s = s;
        this.out = out;
    }

    /**
     * Trains and prints the loss per epoch, the time per step and the share of communication.
     *
     * @return the digest of this rank's weights at the end
     */
    public ReplicaDigest run() {
        float[] params = new float[new Mlp(Spiral.FEATURES, s.hidden(), s.hidden(), CLASSES).paramCount()];
        Communicator first = comm;
        coll = collectives(params.length);
        try {
            return run(params);
        } finally {
            coll.close();
            if (comm != first) {
                comm.close();
            }
        }
    }

    private ArrayCollectives collectives(int floats) {
        return s.onDevice() ? new DeviceArrays(comm, 4L * floats) : ArrayCollectives.host(comm);
    }

    private ReplicaDigest run(float[] params) {
        int n = comm.count();
        int rank = comm.userRank();
        int startRank = rank;
        Spiral data = Spiral.generate(s.samples(), CLASSES, s.seed());
        int shard = shard(n);
        Mlp model = new Mlp(Spiral.FEATURES, s.hidden(), s.hidden(), CLASSES);
        model.init(params, s.seed());
        coll.broadcast(params, 0); // as DDP: rank 0's initial weights everywhere
        float[] grad = new float[params.length];
        float[] velocity = new float[params.length];
        int steps = steps(shard);
        int firstEpochSteps = steps;
        print("# nccl4j train: MLP %d-%d-%d-%d (%d parameters), spiral of %d samples in %d classes", Spiral.FEATURES,
                s.hidden(), s.hidden(), CLASSES, params.length, s.samples(), CLASSES);
        print("# %d ranks x %d samples, batch %d per rank (%d global), %d steps per epoch, lr %s momentum %s",
                n, shard, s.batch(), s.batch() * n, steps, s.lr(), s.momentum());
        if (s.onDevice()) {
            print("# gradients in device memory (%s): copied to it, all-reduced there and copied back each step; "
                    + "the model math runs on the CPU", comm.device());
        }

        int[] order = order(rank, shard);
        long computeNanos = 0;
        // Each step's AllReduce as this rank timed it: with the other ranks' at the end, what
        // the collective itself took is told from waiting for a slower rank's compute. Sized for
        // the most steps an epoch can have (one rank left).
        double[] stepComm = new double[steps(s.samples()) * s.epochs()];
        int recorded = 0;
        double firstLoss = Double.NaN;
        double lastLoss = Double.NaN;
        float[] savedParams = new float[params.length];
        float[] savedVelocity = new float[params.length];
        boolean shrunk = false;
        for (int epoch = 1; epoch <= s.epochs(); epoch++) {
            long epochStart = System.nanoTime();
            int epochFirstStep = recorded;
            System.arraycopy(params, 0, savedParams, 0, params.length);
            System.arraycopy(velocity, 0, savedVelocity, 0, velocity.length);
            if (startRank == s.killRank() && epoch == s.killEpoch()) {
                killThisJvm(startRank, epoch);
            }
            shuffle(order, new Random(s.seed() * 1_000_003L + epoch * 7919L + rank));
            double lossSum = 0;
            long correct = 0;
            double[] stats;
            try {
                for (int step = 0; step < steps; step++) {
                    long t0 = System.nanoTime();
                    int from = step * s.batch();
                    int b = Math.min(s.batch(), shard - from);
                    Arrays.fill(grad, 0f);
                    for (int j = from; j < from + b; j++) {
                        int idx = order[j];
                        lossSum += model.accumulate(params, data.x(), Spiral.FEATURES * idx, data.y()[idx], grad, 1f / b);
                        if (model.lastPrediction() == data.y()[idx]) {
                            correct++;
                        }
                    }
                    long t1 = System.nanoTime();
                    coll.allReduce(grad, RedOp.AVG); // the one collective per step
                    long t2 = System.nanoTime();
                    for (int i = 0; i < params.length; i++) {
                        velocity[i] = s.momentum() * velocity[i] + grad[i];
                        params[i] -= s.lr() * velocity[i];
                    }
                    computeNanos += (t1 - t0) + (System.nanoTime() - t2);
                    stepComm[recorded++] = t2 - t1;
                }
                stats = new double[] {lossSum, correct, shard};
                coll.allReduce(stats, RedOp.SUM);
            } catch (NcclException e) {
                if (s.killRank() < 0 || shrunk) {
                    throw e;
                }
                print("# epoch %d: an AllReduce failed (%s: %s)", epoch, e.result(), e.detail());
                shrink(startRank, params.length);
                shrunk = true;
                n = comm.count();
                rank = comm.userRank();
                shard = shard(n);
                steps = steps(shard);
                order = order(rank, shard);
                // Back to the epoch's start, the same on every survivor (rank 0's, to be sure).
                System.arraycopy(savedParams, 0, params, 0, params.length);
                System.arraycopy(savedVelocity, 0, velocity, 0, velocity.length);
                coll.broadcast(params, 0);
                coll.broadcast(velocity, 0);
                print("# %d ranks carry on: %d samples each, %d steps per epoch; epoch %d again from its start", n,
                        shard, steps, epoch);
                recorded = epochFirstStep;
                epoch--;
                continue;
            }
            double loss = stats[0] / stats[2];
            firstLoss = epoch == 1 ? loss : firstLoss;
            lastLoss = loss;
            double epochComm = 0;
            for (int i = epochFirstStep; i < recorded; i++) {
                epochComm += stepComm[i];
            }
            // This rank's AllReduce per step, the wait for slower ranks included: the first
            // epochs show the JVMs' warm-up (interpreted code, the JIT compiling on the same cores).
            print("epoch %3d  loss %.4f  accuracy %5.1f%%  %6.0f ms  allreduce %.3f ms/step", epoch, loss,
                    100 * stats[1] / stats[2], (System.nanoTime() - epochStart) / 1e6, epochComm / steps / 1e6);
        }
        report(computeNanos, Arrays.copyOf(stepComm, recorded), firstEpochSteps, steps, grad.length,
                firstLoss, lastLoss);
        finalAccuracy(model, params, data);

        if (s.diverge() && rank == n - 1) {
            params[0] = Math.nextUp(params[0]);
        }
        // The rank it started as: the launcher matches digests to the ranks it started.
        return ReplicaDigest.of(startRank, params);
    }

    private int shard(int n) {
        int shard = s.samples() / n;
        if (shard == 0) {
            throw new IllegalArgumentException(s.samples() + " samples cannot be split over " + n + " ranks");
        }
        return shard;
    }

    /** @return steps per epoch over a shard of {@code shard} samples */
    private int steps(int shard) {
        return (shard + s.batch() - 1) / s.batch();
    }

    /** @return the indexes of a rank's contiguous shard of the data */
    private static int[] order(int rank, int shard) {
        int[] order = new int[shard];
        for (int i = 0; i < shard; i++) {
            order[i] = rank * shard + i;
        }
        return order;
    }

    /**
     * The survivors' way on after the rank {@link TrainSettings#killRank()} died: shrink the
     * communicator to the ranks left ({@code ncclCommShrink}); the failed one is aborted.
     */
    private void shrink(int startRank, int floats) {
        Communicator failed = comm;
        Communicator next = failed.shrink(s.killRank());
        coll.close();
        failed.abort();
        comm = next;
        coll = collectives(floats);
        print("# rank %d left: the %d ranks left shrank the communicator (rank %d is now rank %d of %d)", s.killRank(),
                next.count(), startRank, next.userRank(), next.count());
    }

    /** A rank's abrupt death, as a crash or an OOM killer would cause it: SIGKILL to its own JVM. */
    private static void killThisJvm(int rank, int epoch) {
        System.out.println("rank " + rank + ": killing its own JVM (SIGKILL) at the start of epoch " + epoch
                + " (--kill-rank)");
        System.out.flush();
        try {
            new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            Thread.sleep(10_000); // the signal ends the JVM meanwhile
        } catch (java.io.IOException e) {
            // No kill command: end as abruptly, with the same code.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(TrainSettings.KILLED_EXIT);
    }

    /**
     * Time per step, averaged over the ranks, split three ways: compute, the AllReduce itself and
     * waiting in it for a slower rank. The last rank to enter a step's AllReduce waits for
     * nobody, so the shortest time any rank saw for a step is the collective's own; the rest of
     * a rank's time in it is skew (no clock is compared across processes).
     */
    private void report(long computeNanos, double[] stepComm, int firstEpochSteps, int lastEpochSteps, int gradFloats,
                        double firstLoss, double lastLoss) {
        int totalSteps = stepComm.length;
        double[] own = stepComm.clone();
        coll.allReduce(own, RedOp.MIN);
        double mine = 0;
        double collective = 0;
        for (int i = 0; i < totalSteps; i++) {
            mine += stepComm[i];
            collective += own[i];
        }
        double[] t = {computeNanos, mine};
        coll.allReduce(t, RedOp.AVG);
        double total = t[0] + t[1];
        double skew = t[1] - collective;
        print("# %d steps: %.2f ms per step (compute %.2f ms, allreduce of %d floats %.3f ms, waiting for slower ranks "
                + "%.2f ms), communication %.0f%% of the time", totalSteps, total / totalSteps / 1e6,
                t[0] / totalSteps / 1e6, gradFloats, collective / totalSteps / 1e6, skew / totalSteps / 1e6,
                100 * collective / total);
        // The mean above carries the first epochs' warm-up and the steps a rank lost its core
        // (other threads, the JIT): the distribution and the first epoch against the last tell
        // them from the collective's usual cost.
        double firstEpoch = mean(own, 0, Math.min(firstEpochSteps, totalSteps));
        double lastEpoch = mean(own, Math.max(0, totalSteps - lastEpochSteps), totalSteps);
        Arrays.sort(own);
        print("# allreduce per step, its own time: median %s, 90th percentile %s, 99th %s; mean in the first epoch %s, "
                + "in the last %s", duration(own[totalSteps / 2]), duration(own[totalSteps * 9 / 10]),
                duration(own[totalSteps * 99 / 100]), duration(firstEpoch), duration(lastEpoch));
        print("# loss %.4f -> %.4f (%s)", firstLoss, lastLoss, lastLoss < firstLoss ? "falls" : "DOES NOT FALL");
    }

    private static double mean(double[] a, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += a[i];
        }
        return to > from ? sum / (to - from) : 0;
    }

    private static String duration(double nanos) {
        return nanos < 1e6 ? String.format(Locale.ROOT, "%.1f us", nanos / 1e3)
                : String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    /** Rank 0 evaluates its replica on the whole set (the others hold the same weights). */
    private void finalAccuracy(Mlp model, float[] params, Spiral data) {
        if (out == null) {
            return;
        }
        int correct = 0;
        for (int i = 0; i < data.size(); i++) {
            model.forward(params, data.x(), Spiral.FEATURES * i, data.y()[i]);
            if (model.lastPrediction() == data.y()[i]) {
                correct++;
            }
        }
        print("# accuracy on all %d samples: %.1f%%", data.size(), 100.0 * correct / data.size());
    }

    private static void shuffle(int[] a, Random rnd) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    private void print(String format, Object... args) {
        if (out != null) {
            out.println(String.format(Locale.ROOT, format, args));
            out.flush();
        }
    }
}
