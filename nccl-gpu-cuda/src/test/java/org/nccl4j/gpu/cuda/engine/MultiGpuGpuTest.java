package org.nccl4j.gpu.cuda.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.DataType;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;
import org.nccl4j.UniqueId;
import org.nccl4j.core.debug.DebugLog;
import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.gpu.cuda.CudaBackendProvider;
import org.nccl4j.core.device.gpu.suite.CollectivesGpuSuite;
import org.nccl4j.core.device.gpu.suite.CollectivesGpuSuite.Coll;
import org.nccl4j.core.device.gpu.suite.SendRecvGpuSuite;

/**
 * Ranks of one process on two GPUs, as threads: one rank per GPU connects peer to peer (device
 * pointers across GPUs, {@code cuCtxEnablePeerAccess}) or, with {@code NCCL_P2P_DISABLE=1},
 * through {@code /dev/shm}, and two ranks per GPU ({@code NCCL4J_SHARED_DEVICE=1}) mix both GPUs
 * in one ring; every result is compared byte for byte with the host backend's. Each rank's GPU
 * is pinned per communicator ({@code NCCL4J_CUDA_DEVICE} = rank % 2): unpinned, the backend's
 * process-wide round robin would make a rank's GPU depend on the ranks opened before it. The
 * connection log lines are read from the process's debug log, swapped for the inits. Skipped,
 * with the reason, below 2 CUDA devices.
 */
@Tag("gpu")
class MultiGpuGpuTest {
    private static final long[] COUNTS = {0, 1, 7, 1009, 100_003};
    private static final String[][] PLANS = {{"Ring", "Simple"}, {"Ring", "LL"}, {"Ring", "LL128"},
        {"Tree", "Simple"}, {"Tree", "LL"}};
    private static final String P2P = "P2P/direct pointer";
    private static final String SHM = "direct shared memory";
    private static final String SEGMENT = "/dev/shm/nccl4j-gpu-";
    /** NCCL's connection line as the cuda backend writes it: {@code Channel 00 : 0 -> 1 via P2P/direct pointer}. */
    private static final Pattern CHANNEL_LINE = Pattern.compile("NCCL INFO Channel (\\d{2}) : (\\d+) -> (\\d+) via (.+)$");
    /** Why this test cannot run here, or null; asked once. */
    private static final String NOT_TWO = notTwoGpus();

    private static String notTwoGpus() {
        try {
            int n = new CudaBackendProvider().create().deviceCount();
            return n >= 2 ? null : "needs 2 CUDA devices, this machine has " + n;
        } catch (Exception e) {
            return "needs 2 CUDA devices, this machine has none usable (" + e.getMessage() + ")";
        }
    }

    // Per test rather than @BeforeAll, so that each test is reported skipped, with the reason.
    @BeforeEach
    void needsTwoGpus() {
        Assumptions.assumeTrue(NOT_TWO == null, NOT_TWO);
    }

    /**
     * @param device {@code cuda} or {@code host}
     * @param gpu    the rank's CUDA ordinal, -1 for host ranks
     * @param extra  further parameters, name and value
     */
    private static CommConfig config(String device, int gpu, String algo, String proto, String... extra) {
        CommConfig.Builder b = CommConfig.builder().param("NCCL4J_DEVICE", device)
                .param("NCCL_MIN_NCHANNELS", "2").param("NCCL_MAX_NCHANNELS", "2")
                .param("NCCL_BUFFSIZE", "65536").param("NCCL_LL_BUFFSIZE", "65536")
                .param("NCCL_LL128_BUFFSIZE", "327680")
                // A kernel whose peer never comes fails the communicator in a minute instead of five.
                .param("NCCL4J_OP_TIMEOUT_MS", "60000");
        if (algo != null) {
            b.param("NCCL_ALGO", algo).param("NCCL_PROTO", proto);
        }
        if (gpu >= 0) {
            b.param("NCCL4J_CUDA_DEVICE", Integer.toString(gpu));
        }
        for (int i = 0; i < extra.length; i += 2) {
            b.param(extra[i], extra[i + 1]);
        }
        return b.build();
    }

    /**
     * One rank per GPU, no shared mode: the two ranks reach each other by device pointers across
     * the GPUs (the connection log says {@code P2P/direct pointer} for every channel and both
     * directions; no {@code /dev/shm} segment, no proxy thread), and every algorithm and protocol,
     * five collectives and Send/Recv, match the host backend exactly.
     */
    @Test
    void oneRankPerGpuConnectsPeerToPeerAndMatchesTheHostBackend() {
        long proxies = proxyThreads();
        everyPlan(new String[0], P2P, () -> {
            assertEquals(0, mappedSegments(), "no /dev/shm segment: not SHM");
            assertEquals(proxies, proxyThreads(), "no proxy thread: not NET");
        }, () -> { });
    }

    /**
     * One rank per GPU with {@code NCCL_P2P_DISABLE=1}: the GPUs exchange through registered
     * {@code /dev/shm} segments (the log says {@code direct shared memory}), unmapped at destroy;
     * every plan still matches the host backend exactly.
     */
    @Test
    void oneRankPerGpuOverShmMatchesTheHostBackend() {
        everyPlan(new String[] {"NCCL_P2P_DISABLE", "1"}, SHM, () -> assertTrue(mappedSegments() >= 2,
                "each rank's connections in a mapped /dev/shm segment"), () -> assertEquals(0, mappedSegments(),
                "destroy unmaps every segment"));
    }

    /**
     * Four ranks, two per GPU ({@code NCCL4J_SHARED_DEVICE=1}, GPUs 0, 1, 0, 1): the rings cross
     * between the GPUs and within each, and AllReduce of INT32 sums (exact in any order) matches
     * the host backend for every plan and the tuning model's own choice.
     */
    @Test
    void twoRanksPerGpuAllReduceMatchesTheHostBackend() {
        List<String[]> plans = new ArrayList<>(List.of(PLANS));
        plans.add(new String[] {null, null});
        for (String[] plan : plans) {
            List<String> log = new ArrayList<>();
            List<Communicator> gpu = initLogged(log, () -> initAll(4,
                    r -> config("cuda", r % 2, plan[0], plan[1], "NCCL4J_SHARED_DEVICE", "1")));
            List<Communicator> host = List.of();
            try (Arena arena = Arena.ofShared()) {
                assertPlacement(gpu);
                host = Nccl.commInitAll(4, config("host", -1, plan[0], plan[1]));
                int cases = 0;
                for (long count : new long[] {0, 1, 7, 1009, 100_003, 1_000_003}) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        CollectivesGpuSuite.check(gpu, host, arena, Coll.ALL_REDUCE, DataType.INT32, RedOp.SUM, count,
                                inPlace, 11 + cases);
                        cases++;
                    }
                }
                System.out.println("cuda " + (plan[0] == null ? "tuned" : plan[0] + "/" + plan[1]) + ", 4 ranks on 2 GPUs: "
                        + cases + " AllReduce cases identical to the host backend; connections " + vias(log).values());
            } finally {
                gpu.forEach(Communicator::close);
                host.forEach(Communicator::close);
            }
        }
    }

    /**
     * Every plan on 2 ranks, rank r pinned to GPU r: the connection lines all say {@code via},
     * the ranks are on distinct GPUs, and INT32 and FLOAT32 sums (two operands: exact in either
     * order), Broadcast, AllGather and Send/Recv are byte-identical to the host backend's.
     */
    private static void everyPlan(String[] extra, String via, Runnable whileAlive, Runnable afterClose) {
        for (String[] plan : PLANS) {
            List<String> log = new ArrayList<>();
            List<Communicator> gpu = initLogged(log, () -> initAll(2,
                    r -> config("cuda", r, plan[0], plan[1], extra)));
            List<Communicator> host = List.of();
            try (Arena arena = Arena.ofShared()) {
                assertPlacement(gpu);
                assertConnections(log, via);
                whileAlive.run();
                host = Nccl.commInitAll(2, config("host", -1, plan[0], plan[1], extra));
                int cases = 0;
                boolean tree = plan[0].equals("Tree");
                for (Coll coll : tree ? new Coll[] {Coll.ALL_REDUCE} : Coll.values()) {
                    boolean reduces = coll != Coll.BROADCAST && coll != Coll.ALL_GATHER;
                    for (DataType type : new DataType[] {DataType.INT32, DataType.FLOAT32}) {
                        for (long count : COUNTS) {
                            for (boolean inPlace : new boolean[] {false, true}) {
                                CollectivesGpuSuite.check(gpu, host, arena, coll, type, reduces ? RedOp.SUM : null,
                                        count, inPlace, 2 + 7 * cases);
                                cases++;
                            }
                        }
                    }
                }
                if (!tree && plan[1].equals("Simple")) {
                    for (long count : COUNTS) {
                        SendRecvGpuSuite.pair(gpu, 0, 1, count, DataType.INT32, count);
                        SendRecvGpuSuite.pair(gpu, 1, 0, count, DataType.FLOAT32, count + 1);
                        cases += 2;
                    }
                }
                System.out.println("cuda via " + via + " " + plan[0] + "/" + plan[1] + ", 2 ranks on 2 GPUs: " + cases
                        + " cases identical to the host backend");
            } finally {
                gpu.forEach(Communicator::close);
                host.forEach(Communicator::close);
            }
            afterClose.run();
        }
    }

    /**
     * {@code commInitAll} with a config per rank (each its own GPU): the ranks' inits run
     * together; the first failure cancels the others and is thrown, the communicators that
     * completed are aborted.
     */
    private static List<Communicator> initAll(int nranks, IntFunction<CommConfig> configOf) {
        UniqueId id = Nccl.getUniqueId();
        List<CompletableFuture<Communicator>> inits = new ArrayList<>();
        for (int r = 0; r < nranks; r++) {
            CompletableFuture<Communicator> f = Nccl.commInitRankAsync(nranks, id, r, configOf.apply(r));
            inits.add(f);
            f.whenComplete((c, e) -> {
                if (e != null) {
                    inits.forEach(x -> x.cancel(true));
                }
            });
        }
        List<Communicator> comms = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<Communicator> f : inits) {
            try {
                comms.add(f.join());
            } catch (CompletionException | CancellationException e) {
                if (failure == null || failure instanceof CancellationException) {
                    failure = e.getCause() instanceof RuntimeException c ? c : e;
                }
            }
        }
        if (failure != null) {
            comms.forEach(Communicator::abort);
            throw failure;
        }
        return comms;
    }

    /** Rank r is on GPU r % 2, as pinned, and the two GPUs are distinct devices (bus ids). */
    private static void assertPlacement(List<Communicator> gpu) {
        for (int r = 0; r < gpu.size(); r++) {
            assertEquals("cuda", gpu.get(r).device().backend(), "rank " + r);
            assertEquals(r % 2, gpu.get(r).device().index(), "rank " + r + " on " + gpu.get(r).device());
            assertEquals(gpu.get(r % 2).device().busId(), gpu.get(r).device().busId(), "rank " + r);
        }
        assertNotEquals(gpu.get(0).device().busId(), gpu.get(1).device().busId(), "ranks 0 and 1 on distinct GPUs");
    }

    /**
     * Both directions of channel 00 are logged, and every connection line of the init says
     * {@code via} ({@code /read} may follow {@code P2P/direct pointer}: NCCL's read mode, chosen
     * by the topology on some GPUs).
     */
    private static void assertConnections(List<String> log, String via) {
        Map<String, String> vias = vias(log);
        String all = String.join("\n", log);
        assertTrue(vias.containsKey("00 : 0 -> 1") && vias.containsKey("00 : 1 -> 0"),
                "Channel 00 : 0 -> 1 and 1 -> 0 in the INIT log:\n" + all);
        vias.forEach((conn, v) -> assertTrue(v.equals(via) || via.equals(P2P) && v.equals(P2P + "/read"),
                "Channel " + conn + " via " + v + ", expected via " + via
                        + (via.equals(P2P) ? " (SHM or NET between the GPUs: no peer access, or a PCI path NCCL does not "
                        + "use for P2P; see nvidia-smi topo -m)" : "") + ":\n" + all));
    }

    /** @return each connection line's {@code channel : from -> to} and what it went through */
    private static Map<String, String> vias(List<String> log) {
        Map<String, String> vias = new TreeMap<>();
        for (String line : log) {
            Matcher m = CHANNEL_LINE.matcher(line);
            if (m.find()) {
                vias.put(m.group(1) + " : " + m.group(2) + " -> " + m.group(3), m.group(4));
            }
        }
        return vias;
    }

    /**
     * Runs an init with the process's debug log replaced by one that keeps INIT lines at INFO.
     * The log is process-wide and fixed at its first use ({@code NCCL_DEBUG} as it was then), so
     * it is swapped for the call and put back after; what it kept is also printed, for the report.
     */
    private static <T> T initLogged(List<String> into, Supplier<T> init) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Field field;
        Object before;
        try {
            field = Log.class.getDeclaredField("log");
            field.setAccessible(true);
            before = field.get(null);
            field.set(null, new DebugLog(Level.INFO, Subsys.INIT, out, null));
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot swap the debug log (Log.log): " + e, e);
        }
        try {
            return init.get();
        } finally {
            try {
                field.set(null, before);
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
            String text = bytes.toString(StandardCharsets.UTF_8);
            System.out.print(text);
            into.addAll(text.lines().toList());
        }
    }

    /** @return this process's mappings of the backend's SHM segments ({@code /proc/self/maps} lines) */
    private static long mappedSegments() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains(SEGMENT)).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the live proxy threads of communicators ({@code NCCLproxy <rank>}) */
    private static long proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("NCCLproxy ")).count();
    }
}
