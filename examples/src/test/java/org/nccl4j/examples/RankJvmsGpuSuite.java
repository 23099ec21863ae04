package org.nccl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Set;
import java.nio.file.Path;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
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
 * {@code --device cuda|hip --nranks N}, for each GPU backend a subclass: the ranks are local JVMs,
 * each with its own GPU context, so every byte between them crosses processes through CUDA (HIP)
 * IPC, or through {@code /dev/shm} or the network with P2P disabled (on a one-GPU machine they
 * share the GPU, {@code NCCL4J_SHARED_DEVICE=1}). perf's every collective checks out on 2 rank JVMs
 * (8 B, 8 KiB, 8 MiB), and train's replicas end identical to each other and to the same run on
 * threads (types and reductions are the kernels', covered in one process by the GPU modules'
 * tests). Two processes on one GPU time-slice it (each has its own context): a call costs ~5 ms
 * there and a rank-JVM run tens of seconds, so the runs are few. Run from a JVM whose {@code java.class.path} holds the
 * jars (the rank JVMs are started with it): Maven's surefire, or {@code scripts/gpu-test run}'s
 * second pass.
 */
@Tag("gpu")
abstract class RankJvmsGpuSuite {
    private static final String[] COLLS = {"allreduce", "broadcast", "reduce", "allgather", "reducescatter"};

    private static final Pattern RECEIVE_GDR_01 =
            Pattern.compile("Channel 00 : 0\\[[0-9a-f]+\\] -> 1\\[[0-9a-f]+\\] \\[receive\\] via NET/Fixture/0/GDRDMA$");
    private static final Pattern RECEIVE_GDR_10 =
            Pattern.compile("Channel 00 : 1\\[[0-9a-f]+\\] -> 0\\[[0-9a-f]+\\] \\[receive\\] via NET/Fixture/0/GDRDMA$");

    private final GpuHere gpu;
    private final Pattern rankLine;

    RankJvmsGpuSuite(GpuHere gpu) {
        this.gpu = gpu;
        rankLine = Pattern.compile("#  Rank +(\\d+) Group  0 Pid +(\\d+) on +\\S+ device +\\d+ "
                + "\\[[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]\\] " + gpu.backend());
    }

    @BeforeEach
    void needsGpu() {
        gpu.requireOrSkip();
    }

    @Test
    void everyCollectiveChecksOutAcrossRankJvms() {
        for (int n : new int[] {2}) {
            for (String coll : COLLS) {
                Cli.Result r = PerfGpuSuite.perf(gpu, "--nranks", Integer.toString(n), "--op", coll, "-b", "8",
                        "-e", "8M", "-f", "1024");
                assertEquals(0, r.exitCode(), coll + " on " + n + " rank JVMs: " + r.text());
                PerfTable.parse(r.lines()).assertCleanSweep(8, 8 << 20, 1024);
                Set<String> pids = r.lines().stream().map(rankLine::matcher).filter(Matcher::matches)
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
     * GDR: the network is nccl-net-ext's test plugin that takes the GPU's memory
     * ({@link GpuHere#gdrPlugin}, staging through host memory) with
     * {@code NCCL_NET_GDR_LEVEL=SYS} and {@code NCCL_NET_GDR_READ=1}: every connection is GPU
     * Direct RDMA ({@code /GDRDMA}), both directions.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"SHM", "NET", "GDR"})
    void otherTransportsAcrossRankJvms(String transport) {
        // This JVM's own parameters and log are fixed before the properties meant for the ranks.
        Config.global();
        Log.get();
        boolean gdr = transport.equals("GDR");
        boolean net = gdr || transport.equals("NET");
        Map<String, String> props = new LinkedHashMap<>();
        props.put("nccl.p2p.disable", "1");
        props.put("nccl.shm.disable", net ? "1" : "0");
        props.put("nccl.debug", "INFO");
        props.put("nccl.debug.subsys", "INIT");
        if (gdr) {
            assumeTrue(gpu.gdrPlugin() != null, "no test net plugin takes " + gpu.backend() + " memory");
            String dir = System.getProperty("nccl4j.fixtures");
            Path plugin = dir == null ? null : Path.of(dir, gpu.gdrPlugin());
            assumeTrue(plugin != null && Files.isRegularFile(plugin),
                    "nccl-net-ext's fixture plugin is not built (nccl4j.fixtures=" + dir + ")");
            props.put("nccl.net.plugin", plugin.toAbsolutePath().toString());
            props.put("nccl.net.gdr.level", "SYS");
            props.put("nccl.net.gdr.read", "1");
        }
        props.forEach(System::setProperty);
        try {
            String via = net ? "NET" : "direct shared memory";
            for (String op : new String[] {"allreduce", "sendrecv"}) {
                Cli.Result r = PerfGpuSuite.perf(gpu, "--nranks", "2", "--op", op, "-b", "8", "-e", "64K", "-f", "64");
                assertEquals(0, r.exitCode(), r.text());
                PerfTable.parse(r.lines()).assertCleanSweep(8, 64 << 10, 64);
                for (String line : new String[] {"Channel 00 : 0 -> 1 via " + via, "Channel 00 : 1 -> 0 via " + via}) {
                    assertTrue(r.lines().stream().anyMatch(l -> l.endsWith(line)), line + " in\n" + r.text());
                }
                if (gdr) {
                    // The network's own lines, one per receive end: NCCL's, with the bus ids.
                    for (Pattern p : new Pattern[] {RECEIVE_GDR_01, RECEIVE_GDR_10}) {
                        assertTrue(r.lines().stream().anyMatch(l -> p.matcher(l).find()), p + " in\n" + r.text());
                    }
                    assertTrue(r.lines().stream().noneMatch(l -> l.contains(" via NET/") && !l.endsWith("/GDRDMA")),
                            "every NET connection is GPU Direct RDMA:\n" + r.text());
                }
            }
        } finally {
            props.keySet().forEach(System::clearProperty);
        }
    }

    @Test
    void trainOnRankJvmsEndsWithTheWeightsOfTheThreadsRun() {
        Cli.Result jvms = Cli.run("train", "--device", gpu.backend(), "--nranks", "2", "--epochs", "4");
        assertEquals(0, jvms.exitCode(), jvms.text());
        Cli.Result threads = Cli.run("train", "--device", gpu.backend(), "--threads", "2", "--epochs", "4");
        assertEquals(0, threads.exitCode(), threads.text());
        String digest = TrainGpuSuite.identicalDigest(jvms.lines(), jvms.text());
        assertEquals(TrainGpuSuite.identicalDigest(threads.lines(), threads.text()), digest,
                jvms.text() + "\n" + threads.text());
        String onDevice = "# gradients in device memory (" + gpu.backend() + ":";
        assertNotEquals(0, jvms.lines().stream().filter(l -> l.startsWith(onDevice)).count(), jvms.text());
    }
}
