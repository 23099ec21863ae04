package org.nccl4j.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import org.nccl4j.CommConfig;
import picocli.CommandLine.Option;

/** How a command gets its ranks: local rank JVMs, threads of this JVM, or a launcher's environment. */
final class RankOptions {
    @Option(names = "--nranks", description = "launch this many local rank JVMs (default: run as one rank of a launcher, or 1)")
    Integer nranks;

    @Option(names = "--threads", description = "run this many ranks as threads of this JVM instead")
    Integer threads;

    @Option(names = "--timeout", defaultValue = "PT10M",
            description = "deadline for the whole run of local rank JVMs (ISO-8601, default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--init-timeout", description = "deadline for communicator init (ISO-8601; default NCCL4J_INIT_TIMEOUT_MS)")
    Duration initTimeout;

    /** @return whether a launcher (ours, mpirun, torchrun, Slurm, PMI) started this process as a rank */
    static boolean underLauncher() {
        var env = System.getenv();
        return env.containsKey("NCCL4J_RANK") || env.containsKey("OMPI_COMM_WORLD_RANK") || env.containsKey("PMI_RANK")
                || (env.containsKey("RANK") && env.containsKey("WORLD_SIZE"))
                || (env.containsKey("SLURM_PROCID") && env.containsKey("SLURM_NTASKS"));
    }

    /**
     * @param device what {@code --device} asks for
     * @param nranks ranks in this process
     * @param notes  where {@code #} lines about the device settings go
     * @return the communicator config these options ask for ({@code --init-timeout}, the device
     *     backend: host memory on the host backend unless {@code NCCL4J_DEVICE} says otherwise, as
     *     on a GPU machine the cuda backend would come first and refuse host memory)
     */
    CommConfig config(DeviceOption device, int nranks, PrintStream notes) {
        CommConfig.Builder b = CommConfig.builder();
        if (initTimeout != null) {
            b.initTimeout(initTimeout);
        }
        device.configure(b, nranks, notes);
        return b.build();
    }

    /** @return how many ranks run as threads of this JVM ({@code --threads}), or 0: rank JVMs or one rank of a launcher */
    int threadRanks() {
        return threads != null ? threads : 0;
    }

    /** @return the options each rank JVM started by {@link RankLauncher} must also get */
    List<String> childOptions() {
        return initTimeout == null ? List.of() : List.of("--init-timeout", initTimeout.toString());
    }
}
