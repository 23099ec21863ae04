package org.nccl4j.examples;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** {@code nccl4j topo sim <topology.xml> <nodes>}. */
    @Command(name = "sim", mixinStandardHelpOptions = true,
            description = "Replay NCCL v2.10.3's topology, search, connect and tuning for every rank of an N-node job "
                    + "built from one topology XML and print what they compute (NCCL_* variables apply).")
    static final class Sim implements Callable<Integer> {
        @Parameters(index = "0", description = "NCCL topology XML (NCCL_TOPO_FILE format)")
        Path xml;

        @Parameters(index = "1", description = "number of nodes")
        int nodes;

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
            PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                    StandardCharsets.UTF_8);
            try {
                TopoSimulator.run(xml, nodes, System.getenv(), out);
                out.flush();
                return 0;
            } catch (NcclException e) {
                out.flush();
                System.err.println("nccl4j topo sim: " + e.getMessage());
                return 1;
            }
        }
    }

    /** {@code nccl4j topo show [--nranks N]}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print this machine's detected topology XML and the graphs, channels and tuning "
                    + "a communicator of N local host ranks would use.")
    static final class Show implements Callable<Integer> {
        @Option(names = "--nranks", defaultValue = "2", description = "local ranks (default ${DEFAULT-VALUE})")
        int nranks;

        @Override
        public Integer call() {
            return TopoShow.print(nranks);
        }
    }
}
