package org.nccl4j.examples;

import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.nccl4j.NcclException;
import org.nccl4j.core.topo.sim.TopoSimulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nccl4j topo}: the topology port's simulator and this machine's topology. */
@Command(name = "topo", mixinStandardHelpOptions = true,
        description = "Topology: simulate NCCL's graph code on a topology file, or show this machine's.",
        subcommands = {TopoCommand.Sim.class, TopoCommand.Show.class})
final class TopoCommand {

    /** {@code nccl4j topo sim [--repeat N] <topology.xml> <nodes>}. */
    @Command(name = "sim", mixinStandardHelpOptions = true,
            description = "Replay NCCL v2.10.3's topology, search, connect and tuning for every rank of an N-node job "
                    + "built from one topology XML and print what they compute (NCCL_* variables apply).")
    static final class Sim implements Callable<Integer> {
        @Parameters(index = "0", description = "topology XML (NCCL_TOPO_FILE format; NCCL's version 1 or RCCL's version 2)")
        Path xml;

        @Parameters(index = "1", description = "number of nodes")
        int nodes;

        @Option(names = "--repeat", defaultValue = "1", paramLabel = "N",
                description = "run the simulation N times (output printed once) and print each run's per-rank "
                        + "search time (paths, trim, three graph searches: mean and max) to stderr; the last runs "
                        + "give the JIT-warm figure (default ${DEFAULT-VALUE}: no timing)")
        int repeat;

        @Override
        public Integer call() {
            if (!Files.isReadable(xml)) {
                System.err.println("nccl4j topo sim: cannot read " + xml);
                return 2;
            }
            if (nodes < 1) {
                System.err.println("nccl4j topo sim: nodes must be at least 1, not " + nodes);
                return 2;
            }
            if (repeat < 1) {
                System.err.println("nccl4j topo sim: --repeat must be at least 1, not " + repeat);
                return 2;
            }
            PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                    StandardCharsets.UTF_8);
            try {
                for (int run = 1; run <= repeat; run++) {
                    List<TopoSimulator.RankState> states = TopoSimulator.run(xml, nodes, System.getenv(),
                            run == 1 ? out : Writer.nullWriter());
                    out.flush();
                    if (repeat > 1) {
                        System.err.println(timingLine(run, states));
                    }
                }
                return 0;
            } catch (NcclException e) {
                out.flush();
                System.err.println("nccl4j topo sim: " + e.getMessage());
                return 1;
            }
        }
    }

    /**
     * @param run    the run's number, from 1
     * @param states its ranks
     * @return {@code TIMING run=i ranks=R search/rank mean=.. ms max=.. ms (rank r)}
     */
    static String timingLine(int run, List<TopoSimulator.RankState> states) {
        long sum = 0;
        TopoSimulator.RankState slowest = states.get(0);
        for (TopoSimulator.RankState s : states) {
            sum += s.searchNanos();
            if (s.searchNanos() > slowest.searchNanos()) {
                slowest = s;
            }
        }
        return String.format(Locale.ROOT, "TIMING run=%d ranks=%d search/rank mean=%.3f ms max=%.3f ms (rank %d)", run,
                states.size(), sum / 1e6 / states.size(), slowest.searchNanos() / 1e6, slowest.rank());
    }

    /** {@code nccl4j topo show [--nranks N]}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print this machine's detected topology XML and the graphs, channels and tuning "
                    + "a communicator of N local ranks would use, on the device backend init would choose "
                    + "(cuda: the machine's GPUs; else host ranks).")
    static final class Show implements Callable<Integer> {
        @Option(names = "--nranks", paramLabel = "N",
                description = "local ranks (default: one per GPU with the cuda backend, 2 host ranks otherwise; "
                        + "more ranks than GPUs share them, as NCCL4J_SHARED_DEVICE=1 does)")
        Integer nranks;

        @Override
        public Integer call() {
            return TopoShow.print(nranks);
        }
    }
}
