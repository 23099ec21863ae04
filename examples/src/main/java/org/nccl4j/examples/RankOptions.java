package org.nccl4j.examples;

import java.time.Duration;
import java.util.List;
import org.nccl4j.CommConfig;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Source;
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
     * @return the communicator config these options ask for ({@code --init-timeout}); the host
     *     backend unless {@code NCCL4J_DEVICE} says otherwise, since train and perf move host
     *     memory (on a GPU machine the cuda backend would come first and refuse it)
     */
    CommConfig config() {
        CommConfig.Builder b = CommConfig.builder();
        if (initTimeout != null) {
            b.initTimeout(initTimeout);
        }
        if (Config.global().setting(Params.DEVICE).source() == Source.DEFAULT) {
            b.param(Params.DEVICE.envName(), HostBackend.NAME);
        }
        return b.build();
    }

    /** @return the options each rank JVM started by {@link RankLauncher} must also get */
    List<String> childOptions() {
        return initTimeout == null ? List.of() : List.of("--init-timeout", initTimeout.toString());
    }
}
