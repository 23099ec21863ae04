package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.param.Config;

/**
 * {@code --device cuda --nranks N}: the ranks are local JVMs, each with its own CUDA context, so
 * every byte between them crosses processes through CUDA IPC, or through {@code /dev/shm} or the
 * network with P2P disabled (on a one-GPU machine they share the GPU, {@code NCCL4J_SHARED_DEVICE=1}). perf's every collective checks out on 2 rank JVMs
 * (8 B, 8 KiB, 8 MiB), and train's replicas end identical to each other and to the same run on
 * threads (types and reductions are the kernels', covered in one process by nccl-gpu-cuda's
 * tests). Two processes on one GPU time-slice it (each has its own context): a call costs ~5 ms
 * there and a rank-JVM run tens of seconds, so the runs are few. Run from a JVM whose {@code java.class.path} holds the
 * jars (the rank JVMs are started with it): Maven's surefire, or {@code scripts/gpu-test run}'s
 * second pass.
 */
@Tag("gpu")
class RankJvmsGpuTest {
    private static final String[] COLLS = {"allreduce", "broadcast", "reduce", "allgather", "reducescatter"};
    private static final Pattern RANK_LINE = Pattern.compile("#  Rank +(\\d+) Group  0 Pid +(\\d+) on +\\S+ device +\\d+ "
            + "\\[[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]\\] cuda");

    @BeforeEach
    void needsGpu() {
        CudaGpu.requireOrSkip();
    }

    @Test
    void everyCollectiveChecksOutAcrossRankJvms() {
        for (int n : new int[] {2}) {
            for (String coll : COLLS) {
                Cli.Result r = PerfGpuTest.perf("--nranks", Integer.toString(n), "--op", coll, "-b", "8", "-e", "8M", "-f", "1024");
                assertEquals(0, r.exitCode(), coll + " on " + n + " rank JVMs: " + r.text());
                PerfTable.parse(r.lines()).assertCleanSweep(8, 8 << 20, 1024);
                Set<String> pids = r.lines().stream().map(RANK_LINE::matcher).filter(Matcher::matches)
                        .map(m -> m.group(2)).collect(Collectors.toSet());
                assertEquals(n, pids.size(), "one process per rank: " + r.text());
                assertTrue(!pids.contains(Long.toString(ProcessHandle.current().pid())), r.text());
            }
        }
    }

    /**
     * {@code NCCL_P2P_DISABLE=1}, and {@code NCCL_SHM_DISABLE=1} for the network (given as
     * {@code -D}, which the launcher passes on): the rank JVMs connect through registered
     * {@code /dev/shm} segments (NCCL's SHM transport) or through the Socket network and their
     * proxy threads (NET), says the connection log, and AllReduce and Send/Recv still check out.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SHM", "NET"})
    void otherTransportsAcrossRankJvms(String transport) {
        // This JVM's own parameters and log are fixed before the properties meant for the ranks.
        Config.global();
        Log.get();
        boolean net = transport.equals("NET");
        System.setProperty("nccl.p2p.disable", "1");
        System.setProperty("nccl.shm.disable", net ? "1" : "0");
        System.setProperty("nccl.debug", "INFO");
        System.setProperty("nccl.debug.subsys", "INIT");
        try {
            String via = net ? "NET" : "direct shared memory";
            for (String op : new String[] {"allreduce", "sendrecv"}) {
                Cli.Result r = PerfGpuTest.perf("--nranks", "2", "--op", op, "-b", "8", "-e", "64K", "-f", "64");
                assertEquals(0, r.exitCode(), r.text());
                PerfTable.parse(r.lines()).assertCleanSweep(8, 64 << 10, 64);
                for (String line : new String[] {"Channel 00 : 0 -> 1 via " + via, "Channel 00 : 1 -> 0 via " + via}) {
                    assertTrue(r.lines().stream().anyMatch(l -> l.endsWith(line)), line + " in\n" + r.text());
                }
            }
        } finally {
            for (String k : new String[] {"nccl.p2p.disable", "nccl.shm.disable", "nccl.debug", "nccl.debug.subsys"}) {
                System.clearProperty(k);
            }
        }
    }

    @Test
    void trainOnRankJvmsEndsWithTheWeightsOfTheThreadsRun() {
        Cli.Result jvms = Cli.run("train", "--device", "cuda", "--nranks", "2", "--epochs", "4");
        assertEquals(0, jvms.exitCode(), jvms.text());
        Cli.Result threads = Cli.run("train", "--device", "cuda", "--threads", "2", "--epochs", "4");
        assertEquals(0, threads.exitCode(), threads.text());
        String digest = TrainGpuTest.identicalDigest(jvms.lines(), jvms.text());
        assertEquals(TrainGpuTest.identicalDigest(threads.lines(), threads.text()), digest,
                jvms.text() + "\n" + threads.text());
        assertNotEquals(0, jvms.lines().stream().filter(l -> l.startsWith("# gradients in device memory (cuda:")).count(),
                jvms.text());
    }
}
