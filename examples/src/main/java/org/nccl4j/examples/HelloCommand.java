package org.nccl4j.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.host.HostIdentity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code nccl4j hello}: every rank initialises a communicator, says who it is, and destroys it. */
@Command(name = "hello", mixinStandardHelpOptions = true,
        description = "Initialise a communicator on every rank and print rank, size, nodes, host, net, device and init time.")
final class HelloCommand implements Callable<Integer> {
    @Mixin
    RankOptions ranks = new RankOptions();

    @Override
    public Integer call() {
        try {
            if (ranks.threads != null) {
                List<Communicator> comms = Nccl.commInitAll(ranks.threads, config());
                comms.forEach(c -> System.out.println(line(c)));
                comms.forEach(Communicator::close);
                return 0;
            }
            if (!RankOptions.underLauncher()) {
                int n = ranks.nranks == null ? 1 : ranks.nranks;
                return RankLauncher.launch(n, new ArrayList<>(List.of("hello")), ranks);
            }
            try (Communicator c = Nccl.commInitFromEnv(config())) {
                System.out.println(line(c));
            }
            return 0;
        } catch (NcclException e) {
            System.err.println("nccl4j hello: " + e.getMessage());
            return 2;
        }
    }

    private CommConfig config() {
        return ranks.initTimeout == null ? CommConfig.defaults()
                : CommConfig.builder().initTimeout(ranks.initTimeout).build();
    }

    static String line(Communicator c) {
        String time = c instanceof CoreCommunicator cc ? cc.initTime().toMillis() + " ms" : "?";
        return String.format("rank %d of %d: nodes %d host %s net %s device %s init %s",
                c.userRank(), c.count(), c.nodeCount(), HostIdentity.hostname(), c.netName(), c.device(), time);
    }
}
