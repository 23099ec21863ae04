package org.nccl4j.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.examples.perf.Collective;
import org.nccl4j.examples.perf.ElementType;
import org.nccl4j.examples.perf.PerfRank;
import org.nccl4j.examples.perf.PerfSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nccl4j perf}: nccl-tests for nccl4j. Same flags (where they make sense on the JVM), same
 * sweep, timing, bandwidth formulas, data check and output; {@code --op} picks the collective
 * ({@code all_reduce_perf}, {@code broadcast_perf}, ...), {@code -o} the reduction.
 */
@Command(name = "perf", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure a collective over a range of sizes and print nccl-tests' table.",
            "Ranks: --nranks N local rank JVMs, --threads N ranks in this JVM, or one rank per process under a launcher "
                    + "(mpirun -np 2 -x NCCL_COMM_ID=host:port nccl4j perf ...).",
            "--device cuda: buffers in GPU memory (filled and checked through host copies, outside the timed loop), "
                    + "one GPU per rank, sharing the GPUs when the ranks outnumber them; "
                    + "allreduce, broadcast, reduce, allgather and reducescatter."})
final class PerfCommand implements Callable<Integer> {
    @Option(names = "--op", defaultValue = "allreduce", paramLabel = "COLL",
            description = "collective: allreduce, broadcast, reduce, allgather, reducescatter, sendrecv, alltoall (default ${DEFAULT-VALUE})")
    String coll;

    @Option(names = {"-b", "--minbytes"}, defaultValue = "32M", description = "smallest size, bytes with K/M/G suffix (default ${DEFAULT-VALUE})")
    String minBytes;

    @Option(names = {"-e", "--maxbytes"}, defaultValue = "32M", description = "largest size (default ${DEFAULT-VALUE})")
    String maxBytes;

    @Option(names = {"-i", "--stepbytes"}, defaultValue = "1M", description = "additive step when -f is 1 (default ${DEFAULT-VALUE})")
    String stepBytes;

    @Option(names = {"-f", "--stepfactor"}, defaultValue = "1", description = "multiplicative step, used when more than 1 (default ${DEFAULT-VALUE})")
    long stepFactor;

    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed iterations per size (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = {"-w", "--warmup_iters"}, defaultValue = "5", description = "warm-up iterations (default ${DEFAULT-VALUE})")
    int warmupIters;

    @Option(names = {"-c", "--check"}, defaultValue = "1", description = "checked iterations per size, 0 = no check (default ${DEFAULT-VALUE})")
    int check;

    @Option(names = {"-o", "--redop"}, defaultValue = "sum", description = "reduction: sum, prod, max, min, avg, all (default ${DEFAULT-VALUE})")
    String redop;

    @Option(names = {"-d", "--datatype"}, defaultValue = "float",
            description = "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16 (or float16/32/64), all (default ${DEFAULT-VALUE})")
    String datatype;

    @Option(names = {"-r", "--root"}, defaultValue = "0", description = "root of broadcast and reduce (default ${DEFAULT-VALUE})")
    int root;

    @Option(names = {"-z", "--blocking"}, defaultValue = "0", description = "1 = wait and barrier after every operation; 2 = blocking calls back to back, "
                    + "as an MPI program makes them: each returns when done, no barrier (default ${DEFAULT-VALUE})")
    int blocking;

    @Option(names = {"-a", "--average"}, defaultValue = "1",
            description = "time over ranks: 0 = rank 0's, 1 = mean, 2 = min, 3 = max (default ${DEFAULT-VALUE})")
    int average;

    @Option(names = {"-R", "--local_register"}, defaultValue = "1",
            description = "host buffers: 1 = from Nccl.memAlloc, which the rank JVMs of a host read in place; "
                    + "0 = ordinary native memory, copied through the connections' buffers between rank JVMs "
                    + "(ranks in one JVM read both in place) (default ${DEFAULT-VALUE})")
    int localRegister;

    @Option(names = "--compute-us", defaultValue = "0", paramLabel = "US",
            description = "a compute step of US microseconds on each rank before each call, as a training loop makes "
                    + "them (needs -z 2); the time is then the median over calls of each call's least time over ranks, "
                    + "its own cost without the wait for a later rank (default ${DEFAULT-VALUE}: back to back)")
    long computeUs;

    @Mixin
    DeviceOption device = new DeviceOption();

    @Mixin
    RankOptions ranks = new RankOptions();

    @Override
    public Integer call() {
        int threads = ranks.threadRanks();
        if (threads == 0 && !RankOptions.underLauncher() && ranks.nranks == null) {
            threads = 1; // no rank options: one rank in this JVM
        }
        PerfSettings settings;
        try {
            settings = settings(Math.max(1, threads));
            if (settings.onDevice() && settings.coll() == Collective.ALLTOALL) {
                throw NcclException.of(Result.INVALID_USAGE, "alltoall_perf on " + device.kind.backend() + " memory: its "
                        + "in-place half passes one buffer as both, and AllToAll on device memory refuses overlapping "
                        + "buffers (in place its sends and receives would race, as NCCL's do)",
                        "measure it with --device host, or call allToAll on two DeviceBuffers");
            }
        } catch (IllegalArgumentException | NcclException e) {
            System.err.println("nccl4j perf: " + e.getMessage());
            return 2;
        }
        try {
            if (threads > 0) {
                int n = threads;
                return ThreadRanks.run(n, ranks.config(device, n, System.out), c -> runRank(c, settings));
            }
            if (!RankOptions.underLauncher()) {
                return RankLauncher.launch(ranks.nranks, childArgs(), ranks, device, java.util.Map.of(), output -> 0);
            }
            try (Communicator c = Nccl.commInitFromEnv(ranks.config(device, 1, System.out))) {
                return runRank(c, settings);
            }
        } catch (NcclException | IllegalArgumentException e) {
            System.err.println("nccl4j perf: " + e.getMessage());
            return 2;
        }
    }

    private PerfSettings settings(int nThreads) {
        return new PerfSettings(Collective.parse(coll), PerfSettings.parseSize(minBytes), PerfSettings.parseSize(maxBytes),
                PerfSettings.parseSize(stepBytes), stepFactor, iters, warmupIters, check, PerfSettings.parseOps(redop),
                ElementType.parse(datatype), root, blocking, average, computeUs * 1000, nThreads, device.onDevice(),
                localRegister);
    }

    private static int runRank(Communicator c, PerfSettings settings) {
        if (settings.coll().rooted() && (settings.root() < 0 || settings.root() >= c.count())) {
            throw new IllegalArgumentException("root " + settings.root() + " is not a rank of " + c.count());
        }
        PrintStream out = c.userRank() == 0 ? System.out : null;
        try (PerfRank rank = new PerfRank(c, settings, out)) {
            return rank.run();
        }
    }

    /** The same test for each rank JVM, every option spelled out. */
    private List<String> childArgs() {
        List<String> a = new ArrayList<>(List.of("perf", "--op", coll, "-b", minBytes, "-e", maxBytes, "-i", stepBytes,
                "-f", Long.toString(stepFactor), "-n", Integer.toString(iters), "-w", Integer.toString(warmupIters),
                "-c", Integer.toString(check), "-o", redop, "-d", datatype, "-r", Integer.toString(root),
                "-z", Integer.toString(blocking), "-a", Integer.toString(average), "--compute-us", Long.toString(computeUs),
                "-R", Integer.toString(localRegister)));
        a.addAll(ranks.childOptions());
        return a;
    }
}
