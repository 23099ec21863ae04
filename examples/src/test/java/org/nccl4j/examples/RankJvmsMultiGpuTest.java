package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.param.Config;

/**
 * {@code perf --device cuda --nranks 2} on a machine of two GPUs or more: the launcher gives rank
 * r GPU r ({@code NCCL4J_CUDA_DEVICE}) and no shared mode, so the two rank JVMs run on distinct
 * GPUs (the perf header's rank lines show two devices, two bus ids, two processes) and reach each
 * other through CUDA IPC ({@code via P2P/IPC}, says the connection log), and the AllReduce sweep
 * from 8 B to 8 MiB checks out. Skipped, with the reason, below 2 CUDA devices. Run from a JVM
 * whose {@code java.class.path} holds the jars, as {@link RankJvmsGpuTest}.
 */
@Tag("gpu")
class RankJvmsMultiGpuTest {
    /** nccl-tests' rank line: rank, pid, device ordinal, bus id. */
    private static final Pattern RANK_LINE = Pattern.compile("#  Rank +(\\d+) Group  0 Pid +(\\d+) on +\\S+ device +(\\d+) "
            + "\\[([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f])\\] cuda");
    /** The cuda backend's connection line, as the rank JVMs print it at {@code NCCL_DEBUG=INFO}. */
    private static final Pattern CHANNEL_LINE = Pattern.compile("Channel (\\d{2}) : (\\d+) -> (\\d+) via (.+)$");

    @BeforeEach
    void needsTwoGpus() {
        String why = GpuHere.CUDA.unusable();
        if (why != null && GpuHere.CUDA.driverPresent()) {
            GpuHere.CUDA.requireOrSkip(); // fails: a driver is here but the backend cannot run
        }
        int n = why == null ? gpus() : 0;
        Assumptions.assumeTrue(n >= 2, "needs 2 CUDA devices, this machine has " + n + (why == null ? ""
                : " (no usable CUDA GPU: " + why + ")"));
    }

    /** @return the CUDA devices the backend sees */
    private static int gpus() {
        for (DeviceBackendProvider p : DeviceBackends.providers()) {
            if (p.name().equals("cuda")) {
                try {
                    return p.create().deviceCount();
                } catch (Exception e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    @Test
    void twoRankJvmsOnTwoGpusConnectThroughCudaIpc() {
        // This JVM's own parameters and log are fixed before the properties meant for the ranks.
        Config.global();
        Log.get();
        System.setProperty("nccl.debug", "INFO");
        System.setProperty("nccl.debug.subsys", "INIT");
        try {
            Cli.Result r = PerfGpuSuite.perf(GpuHere.CUDA, "--nranks", "2", "--op", "allreduce", "-b", "8", "-e", "8M", "-f", "4");
            assertEquals(0, r.exitCode(), r.text());
            PerfTable.parse(r.lines()).assertCleanSweep(8, 8 << 20, 4);

            List<Matcher> ranks = r.lines().stream().map(RANK_LINE::matcher).filter(Matcher::matches).toList();
            assertEquals(Set.of("0", "1"), ranks.stream().map(m -> m.group(1)).collect(Collectors.toSet()), r.text());
            assertEquals(2, ranks.stream().map(m -> m.group(2)).distinct().count(), "one process per rank: " + r.text());
            assertEquals(Set.of("0", "1"), ranks.stream().map(m -> m.group(3)).collect(Collectors.toSet()),
                    "rank r on GPU r: " + r.text());
            assertEquals(2, ranks.stream().map(m -> m.group(4)).distinct().count(), "two bus ids: " + r.text());
            assertTrue(r.lines().stream().noneMatch(l -> l.contains("NCCL4J_SHARED_DEVICE=1")),
                    "no shared mode on two GPUs: " + r.text());

            List<Matcher> conns = r.lines().stream().map(CHANNEL_LINE::matcher).filter(Matcher::find).toList();
            for (String dir : new String[] {"0 -> 1", "1 -> 0"}) {
                assertTrue(conns.stream().anyMatch(m -> m.group(1).equals("00") && (m.group(2) + " -> " + m.group(3))
                        .equals(dir)), "Channel 00 : " + dir + " via P2P/IPC in\n" + r.text());
            }
            for (Matcher m : conns) {
                // /read: NCCL's read mode, which the topology may choose between some GPUs.
                assertTrue(m.group(4).equals("P2P/IPC") || m.group(4).equals("P2P/IPC/read"), "Channel " + m.group(1)
                        + " : " + m.group(2) + " -> " + m.group(3) + " via " + m.group(4) + ", expected via P2P/IPC "
                        + "(SHM or NET between the GPUs: no peer access, or a PCI path NCCL does not use for P2P; see "
                        + "nvidia-smi topo -m) in\n" + r.text());
            }
        } finally {
            for (String k : new String[] {"nccl.debug", "nccl.debug.subsys"}) {
                System.clearProperty(k);
            }
        }
    }
}
