package org.nccl4j.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.examples.train.ReplicaDigest;
import org.nccl4j.examples.train.TrainSettings;
import org.nccl4j.examples.train.Trainer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nccl4j train}: data-parallel training of a small MLP on a synthetic spiral data set, one
 * AllReduce(AVG) of the gradient per step, loss per epoch, and a check that every replica ends
 * bit-identical: every rank prints the digest of its weights and the launcher (this command, when
 * it starts the ranks as threads or local JVMs) compares them. With no rank options it runs 4
 * local rank JVMs; under another launcher (mpirun) each rank only prints its digest.
 */
@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Data-parallel training of an MLP (2 hidden ReLU layers, softmax cross-entropy) on a 3-class spiral.",
            "Prints the loss per epoch, time per step and the share of communication, every rank's weight digest, and "
                    + "whether the replicas are bit-identical (exit 1 if not). Default: 4 local rank JVMs.",
            "--device cuda: gradients in device memory (copied to the GPU, all-reduced there, copied back each step); "
                    + "the model math runs on the CPU; one GPU per rank, sharing the GPUs when the ranks outnumber them."})
final class TrainCommand implements Callable<Integer> {
    private static final int DEFAULT_RANKS = 4;

    @Option(names = "--epochs", defaultValue = "20", description = "passes over the data (default ${DEFAULT-VALUE})")
    int epochs;

    @Option(names = "--batch", defaultValue = "32", description = "samples per rank per step (default ${DEFAULT-VALUE})")
    int batch;

    @Option(names = "--lr", defaultValue = "0.1", description = "learning rate (default ${DEFAULT-VALUE})")
    float lr;

    @Option(names = "--momentum", defaultValue = "0.9", description = "SGD momentum (default ${DEFAULT-VALUE})")
    float momentum;

    @Option(names = "--hidden", defaultValue = "64", description = "width of the two hidden layers (default ${DEFAULT-VALUE})")
    int hidden;

    @Option(names = "--samples", defaultValue = "3000", description = "data set size, split over the ranks (default ${DEFAULT-VALUE})")
    int samples;

    @Option(names = "--seed", defaultValue = "42", description = "seed of data, weights and shuffles (default ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--kill-rank", defaultValue = "-1", paramLabel = "RANK",
            description = "fault demonstration, rank JVMs only: this rank (not 0) SIGKILLs its own JVM at the start of "
                    + "--kill-epoch; the others shrink the communicator to the ranks left and finish the training")
    int killRank;

    @Option(names = "--kill-epoch", paramLabel = "EPOCH",
            description = "the epoch at whose start --kill-rank dies (default: the middle one)")
    Integer killEpoch;

    /** Test hook: makes one replica differ, so the final check must fail. */
    @Option(names = "--diverge", hidden = true)
    boolean diverge;

    @Mixin
    DeviceOption device = new DeviceOption();

    @Mixin
    RankOptions ranks = new RankOptions();

    @Override
    public Integer call() {
        TrainSettings settings;
        try {
            settings = new TrainSettings(epochs, batch, lr, momentum, hidden, samples, seed, diverge, device.onDevice(),
                    killRank, killEpoch());
        } catch (IllegalArgumentException e) {
            System.err.println("nccl4j train: " + e.getMessage());
            return 2;
        }
        try {
            int threads = ranks.threadRanks();
            if (killRank >= 0 && threads > 0) {
                System.err.println("nccl4j train: --kill-rank kills a rank's JVM: it runs with rank JVMs, not --threads");
                return 2;
            }
            if (threads > 0) {
                ReplicaDigest[] digests = new ReplicaDigest[threads];
                int code = ThreadRanks.run(threads, ranks.config(device, threads, System.out), c -> {
                    digests[c.userRank()] = train(c, settings);
                    return 0;
                });
                Arrays.stream(digests).filter(d -> d != null).forEach(d -> System.out.println(d.line()));
                return Math.max(code, ReplicaDigest.compare(Arrays.asList(digests), System.out));
            }
            if (!RankOptions.underLauncher()) {
                int n = ranks.nranks == null ? DEFAULT_RANKS : ranks.nranks;
                if (killRank >= n) {
                    System.err.println("nccl4j train: --kill-rank " + killRank + " is not one of the " + n + " ranks");
                    return 2;
                }
                // The killed rank ends with SIGKILL's code and prints no digest: the survivors' are compared.
                return RankLauncher.launch(n, childArgs(), ranks, device,
                        killRank > 0 ? Map.of(killRank, TrainSettings.KILLED_EXIT) : Map.of(),
                        output -> ReplicaDigest.compare(survivors(ReplicaDigest.fromOutputs(output)), System.out));
            }
            try (Communicator c = Nccl.commInitFromEnv(ranks.config(device, 1, System.out))) {
                System.out.println(train(c, settings).line());
                return 0;
            }
        } catch (NcclException | IllegalArgumentException e) {
            System.err.println("nccl4j train: " + e.getMessage());
            return 2;
        }
    }

    private int killEpoch() {
        return killEpoch != null ? killEpoch : Math.max(1, (epochs + 1) / 2);
    }

    private List<ReplicaDigest> survivors(List<ReplicaDigest> byRank) {
        List<ReplicaDigest> left = new ArrayList<>(byRank);
        if (killRank > 0) {
            left.remove(killRank);
        }
        return left;
    }

    private static ReplicaDigest train(Communicator c, TrainSettings settings) {
        PrintStream out = c.userRank() == 0 ? System.out : null;
        return new Trainer(c, settings, out).run();
    }

    private List<String> childArgs() {
        List<String> a = new ArrayList<>(List.of("train", "--epochs", Integer.toString(epochs), "--batch",
                Integer.toString(batch), "--lr", Float.toString(lr), "--momentum", Float.toString(momentum),
                "--hidden", Integer.toString(hidden), "--samples", Integer.toString(samples), "--seed", Long.toString(seed)));
        if (diverge) {
            a.add("--diverge");
        }
        if (killRank > 0) {
            a.addAll(List.of("--kill-rank", Integer.toString(killRank), "--kill-epoch",
                    Integer.toString(killEpoch())));
        }
        a.addAll(ranks.childOptions());
        return a;
    }
}
