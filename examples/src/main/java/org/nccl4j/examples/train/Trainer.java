package org.nccl4j.examples.train;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import org.nccl4j.Communicator;
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
 */
public final class Trainer {
    private static final int CLASSES = 3;

    private final Communicator comm;
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
        try (ArrayCollectives coll = s.onDevice() ? new DeviceArrays(comm, 4L * params.length)
                : ArrayCollectives.host(comm)) {
            return run(coll, params);
        }
    }

    private ReplicaDigest run(ArrayCollectives coll, float[] params) {
        int n = comm.count();
        int rank = comm.userRank();
        Spiral data = Spiral.generate(s.samples(), CLASSES, s.seed());
        int shard = s.samples() / n;
        if (shard == 0) {
            throw new IllegalArgumentException(s.samples() + " samples cannot be split over " + n + " ranks");
        }
        int first = rank * shard;
        Mlp model = new Mlp(Spiral.FEATURES, s.hidden(), s.hidden(), CLASSES);
        model.init(params, s.seed());
        coll.broadcast(params, 0); // as DDP: rank 0's initial weights everywhere
        float[] grad = new float[params.length];
        float[] velocity = new float[params.length];
        int steps = (shard + s.batch() - 1) / s.batch();
        print("# nccl4j train: MLP %d-%d-%d-%d (%d parameters), spiral of %d samples in %d classes", Spiral.FEATURES,
                s.hidden(), s.hidden(), CLASSES, params.length, s.samples(), CLASSES);
        print("# %d ranks x %d samples, batch %d per rank (%d global), %d steps per epoch, lr %s momentum %s",
                n, shard, s.batch(), s.batch() * n, steps, s.lr(), s.momentum());
        if (s.onDevice()) {
            print("# gradients in device memory (%s): copied to it, all-reduced there and copied back each step; "
                    + "the model math runs on the CPU", comm.device());
        }

        int[] order = new int[shard];
        for (int i = 0; i < shard; i++) {
            order[i] = first + i;
        }
        long computeNanos = 0;
        // Each step's AllReduce as this rank timed it: with the other ranks' at the end, what
        // the collective itself took is told from waiting for a slower rank's compute.
        double[] stepComm = new double[steps * s.epochs()];
        double firstLoss = Double.NaN;
        double lastLoss = Double.NaN;
        for (int epoch = 1; epoch <= s.epochs(); epoch++) {
            long epochStart = System.nanoTime();
            shuffle(order, new Random(s.seed() * 1_000_003L + epoch * 7919L + rank));
            double lossSum = 0;
            long correct = 0;
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
                stepComm[(epoch - 1) * steps + step] = t2 - t1;
            }
            double[] stats = {lossSum, correct, shard};
            coll.allReduce(stats, RedOp.SUM);
            double loss = stats[0] / stats[2];
            firstLoss = epoch == 1 ? loss : firstLoss;
            lastLoss = loss;
            double epochComm = 0;
            for (int i = (epoch - 1) * steps; i < epoch * steps; i++) {
                epochComm += stepComm[i];
            }
            // This rank's AllReduce per step, the wait for slower ranks included: the first
            // epochs show the JVMs' warm-up (interpreted code, the JIT compiling on the same cores).
            print("epoch %3d  loss %.4f  accuracy %5.1f%%  %6.0f ms  allreduce %.3f ms/step", epoch, loss,
                    100 * stats[1] / stats[2], (System.nanoTime() - epochStart) / 1e6, epochComm / steps / 1e6);
        }
        report(coll, computeNanos, stepComm, grad.length, firstLoss, lastLoss);
        finalAccuracy(model, params, data);

        if (s.diverge() && rank == n - 1) {
            params[0] = Math.nextUp(params[0]);
        }
        return ReplicaDigest.of(rank, params);
    }

    /**
     * Time per step, averaged over the ranks, split three ways: compute, the AllReduce itself and
     * waiting in it for a slower rank. The last rank to enter a step's AllReduce waits for
     * nobody, so the shortest time any rank saw for a step is the collective's own; the rest of
     * a rank's time in it is skew (no clock is compared across processes).
     */
    private void report(ArrayCollectives coll, long computeNanos, double[] stepComm, int gradFloats, double firstLoss,
                        double lastLoss) {
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
        // (other threads, the JIT): the distribution tells them from the collective's usual cost.
        Arrays.sort(own);
        print("# allreduce per step, its own time: median %s, 90th percentile %s, 99th %s", duration(own[totalSteps / 2]),
                duration(own[totalSteps * 9 / 10]), duration(own[totalSteps * 99 / 100]));
        print("# loss %.4f -> %.4f (%s)", firstLoss, lastLoss, lastLoss < firstLoss ? "falls" : "DOES NOT FALL");
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
