package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.topo.system.Cpu;
import org.nccl4j.core.proto.Protocol;
import java.util.Arrays;
import org.nccl4j.core.debug.Level;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.topo.search.TopoGraph;

/**
 * {@code ncclTopoTuneModel} and {@code ncclTopoGetAlgoTime}: per collective, algorithm and
 * protocol a latency (µs) and an algorithm bandwidth (GB/s), the thread limits and the
 * per-thread work thresholds, and from them the predicted time of a call.
 *
 * <p>Arithmetic follows C's types: {@code float} state, {@code double} where C promotes (caps,
 * factors, ratios), each result stored back to {@code float} at the same points.
 */
public final class TuningModel {
    /** {@code NCCL_MAX_WORK_ELEMENTS}: operations aggregated per tree launch. */
    public static final int MAX_WORK_ELEMENTS = 8;
    /** {@code PCI_WIDTH} (GB/s), below which Simple rings default to 256 threads. */
    static final double PCI_WIDTH = 12.0;
    private static final int PATH_NVL = 1;
    private static final int PATH_PXB = 4;
    private static final int LINK_NVL = 1;
    private static final int NFUNC = CollFunc.values().length;
    private static final int NALGO = Algorithm.NCCL.size();
    private static final int NPROTO = Protocol.values().length;
    private static final String[] PROTO_NAMES = Arrays.stream(Protocol.values()).map(Protocol::ncclName).toArray(String[]::new);
    private static final String[] ALGO_NAMES = Algorithm.NCCL.stream().map(Algorithm::ncclName).toArray(String[]::new);

    private final TuningContext ctx;
    private final TuningProfile profile;
    private final float[][][] latencies = new float[NFUNC][NALGO][NPROTO];
    private final float[][][] bandwidths = new float[NFUNC][NALGO][NPROTO];
    private final int[][] maxThreads = new int[NALGO][NPROTO];
    private final long[][] threadThresholds = new long[NALGO][NPROTO];

    private TuningModel(TuningContext ctx, TuningProfile profile) {
        this.ctx = ctx;
        this.profile = profile;
    }

    /**
     * Builds the model; rank 0 logs NCCL's {@code Latency/AlgBw} table (INFO TUNING).
     *
     * @param ctx          the communicator's figures
     * @param treeGraph    the aligned tree graph
     * @param ringGraph    the aligned ring graph
     * @param collNetGraph the aligned CollNet graph
     * @param profile      constant tables
     * @param config       {@code NCCL_NTHREADS}, {@code NCCL_LL128_NTHREADS}, {@code NCCL_PROTO},
     *                     {@code NCCL_ALGO}, {@code NCCL_THREAD_THRESHOLDS}
     * @return the model; with one rank only the thread limits are set
     */
    public static TuningModel compute(TuningContext ctx, TopoGraph treeGraph, TopoGraph ringGraph,
                                      TopoGraph collNetGraph, TuningProfile profile, Config config) {
        TuningModel m = new TuningModel(ctx, profile);
        m.setMaxThreads(ringGraph, config);
        if (ctx.nRanks() <= 1) {
            return m;
        }
        TopoGraph[] graphs = {treeGraph, ringGraph, collNetGraph};
        m.computeTables(graphs, ringGraph.sameChannels);
        m.applyEnables(graphs, config);
        // Built only when it is printed: its 180 exactly rounded figures (BigDecimal) cost rank 0
        // ~15 ms of init and the JIT a C2 compile of BigInteger's arithmetic.
        if (ctx.rank() == 0 && Log.get().enabled(Level.INFO, Subsys.TUNING)) {
            for (String line : TuningPrinter.infoTable(m)) {
                Log.info(Subsys.TUNING, "%s", line);
            }
        }
        m.setThreadThresholds(config);
        return m;
    }

    private void setMaxThreads(TopoGraph ringGraph, Config config) {
        int nt = (int) config.integer(Params.NTHREADS);
        int ll128Nt = (int) config.integer(Params.LL128_NTHREADS);
        int simpleDefault = ringGraph.speedIntra * ringGraph.nChannels <= PCI_WIDTH ? 256 : ThreadCounts.SIMPLE_MAX_NTHREADS;
        int ring = Algorithm.RING.code();
        int tree = Algorithm.TREE.code();
        int collNet = Algorithm.COLLNET.code();
        int simple = Protocol.SIMPLE.code();
        int warp2 = 2 * ThreadCounts.WARP_SIZE;
        int max = ThreadCounts.SIMPLE_MAX_NTHREADS;
        maxThreads[ring][simple] = ThreadCounts.getNthreads("NCCL_NTHREADS", nt, warp2, max, simpleDefault);
        maxThreads[tree][simple] = ThreadCounts.getNthreads("NCCL_NTHREADS", nt, warp2, max, max);
        maxThreads[collNet][simple] = ThreadCounts.getNthreads("NCCL_NTHREADS", nt, max, max, max);
        int ll = ThreadCounts.getNthreads("NCCL_NTHREADS", nt, warp2, ThreadCounts.LL_MAX_NTHREADS,
                ThreadCounts.LL_MAX_NTHREADS);
        int ll128 = ThreadCounts.getNthreads("NCCL_LL128_NTHREADS", ll128Nt, ThreadCounts.LL128_MAX_NTHREADS / 4,
                ThreadCounts.LL128_MAX_NTHREADS, ThreadCounts.LL128_MAX_NTHREADS);
        for (int a = 0; a < NALGO; a++) {
            maxThreads[a][Protocol.LL.code()] = ll;
            maxThreads[a][Protocol.LL128.code()] = ll128;
        }
    }

    private void computeTables(TopoGraph[] graphs, int ringSameChannels) {
        int nNodes = ctx.nNodes();
        int nRanks = ctx.nRanks();
        int compCap80 = ctx.minCompCap() == 80 && ctx.maxCompCap() == 80 ? 1 : 0;
        int index2 = nNodes <= 2 ? nNodes - 1 : 2;
        // LL: one node is limited by the GPU, several by the CPU.
        int index1 = nNodes == 1 ? compCap80 : ctx.cpu().vendor() == Cpu.VENDOR_AMD ? 1 : 0;
        double llMaxBw = profile.llMaxBw(index1, index2);
        double perChMaxTreeBw = profile.perChMaxTreeBw(compCap80, index2);
        float[][][] hwLat = hwLatencies();
        float ppn = (float) nRanks / nNodes; // below 2 the NIC both sends and receives for one GPU

        int[] intraHw = new int[NALGO];
        int[] hw = new int[NALGO];
        for (int a = 0; a < NALGO; a++) {
            intraHw[a] = graphs[a].typeIntra == LINK_NVL ? TuningProfile.HW_NVLINK : TuningProfile.HW_PCI;
            hw[a] = nNodes == 1 ? intraHw[a] : TuningProfile.HW_NET;
        }

        for (CollFunc coll : CollFunc.values()) {
            int nsteps = steps(coll, nRanks);
            int nInterSteps = steps(coll, nNodes);
            for (Algorithm algo : Algorithm.NCCL) {
                if (coll != CollFunc.ALL_REDUCE && algo != Algorithm.RING) {
                    continue;
                }
                int a = algo.code();
                TopoGraph g = graphs[a];
                for (Protocol proto : Protocol.values()) {
                    int p = proto.code();
                    float speed = nNodes <= 2 || algo == Algorithm.COLLNET ? g.speedIntra : g.speedInter;
                    float busBw = profile.rccl() ? rcclBusBw(g.nChannels * speed, algo, proto, nNodes)
                            : ncclBusBw(g.nChannels * speed, coll, algo, proto, g, index2, compCap80, llMaxBw,
                                    perChMaxTreeBw, ppn);
                    if (algo == Algorithm.COLLNET && proto != Protocol.SIMPLE) {
                        busBw = 0; // one-shot CollNet has Simple only
                    }
                    // Bus bandwidth to algorithm bandwidth.
                    float ratio = (float) (algo != Algorithm.RING ? .5 : (1.0 * nRanks) / nsteps);
                    bandwidths[coll.code()][a][p] = busBw * ratio;

                    float lat = profile.baseLat(algo, proto);
                    float intraLat = hwLat[intraHw[a]][a][p];
                    float interLat = hwLat[TuningProfile.HW_NET][a][p];
                    if (nNodes > 1 && proto == Protocol.LL && !profile.rccl()) {
                        intraLat = (float) (intraLat * 1.8); // RCCL leaves this out
                    }
                    if (algo == Algorithm.RING) {
                        float stepLat = hwLat[hw[a]][a][p];
                        if (coll == CollFunc.REDUCE || coll == CollFunc.BROADCAST) {
                            if (ringSameChannels != 0) {
                                lat += stepLat;
                            } else {
                                if (proto == Protocol.SIMPLE) {
                                    // Stands for chunk latency until chunks are modelled.
                                    stepLat = hwLat[hw[a]][Algorithm.TREE.code()][p];
                                }
                                lat += nsteps * stepLat;
                            }
                        } else {
                            lat += (nsteps - nInterSteps) * intraLat + nInterSteps * interLat;
                        }
                    } else if (algo == Algorithm.TREE) {
                        lat += 2 * ((nRanks / nNodes - 1) * intraLat + log2i(nNodes) * interLat);
                    } else {
                        int localPeers = nRanks / nNodes - 1;
                        // 0.5 µs per local peer: arity serialization (double, as C promotes it).
                        double collNetLat = 2 * (Math.min(1, localPeers) * intraLat + localPeers * 0.5) + interLat;
                        lat = (float) (lat + collNetLat);
                    }
                    latencies[coll.code()][a][p] = lat;
                }
            }
        }
    }

    /** NCCL's bus bandwidth refinements: caps, LL and LL128 factors, tree caps per channel. */
    private float ncclBusBw(float raw, CollFunc coll, Algorithm algo, Protocol proto, TopoGraph g, int index2,
                            int compCap80, double llMaxBw, double perChMaxTreeBw, float ppn) {
        int nNodes = ctx.nNodes();
        float busBw = Math.min(raw, profile.maxBusBw(index2));
        if (compCap80 == 1) {
            busBw = Math.min(busBw, profile.ampereBusBwCap());
        }
        if (algo == Algorithm.RING && proto == Protocol.LL) {
            boolean quarter = nNodes > 1 || coll == CollFunc.ALL_REDUCE || coll == CollFunc.REDUCE;
            busBw = (float) Math.min(llMaxBw, busBw * (quarter ? 1.0 / 4.0 : 1.0 / 3.0));
        }
        if (algo == Algorithm.RING && proto == Protocol.LL128) {
            busBw = (float) Math.min(busBw * (ppn < 2 ? 0.7 : 0.92), profile.ll128MaxBwPerCh() * g.nChannels);
        }
        if (algo == Algorithm.TREE) {
            busBw = (float) Math.min(busBw * .92, g.nChannels * perChMaxTreeBw);
        }
        if (algo == Algorithm.TREE && proto == Protocol.LL) {
            busBw = (float) Math.min(busBw * 1.0 / 3.8, llMaxBw);
        }
        if (algo == Algorithm.TREE && proto == Protocol.LL128) {
            busBw = (float) Math.min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    profile.ll128MaxBwPerCh() * g.nChannels);
        }
        return busBw;
    }

    /**
     * RCCL's (2.10.3, AMD GPUs): fixed factors, no caps. RCCL also triples trees on 2 nodes of 32
     * gfx90a ranks ({@code gcn == 910}); the model has no GPU architecture to apply that by.
     */
    private static float rcclBusBw(float raw, Algorithm algo, Protocol proto, int nNodes) {
        float busBw = raw;
        if (algo == Algorithm.RING && (proto == Protocol.LL || proto == Protocol.LL128)) {
            busBw = (float) (busBw * 0.05);
        }
        if (algo == Algorithm.TREE && proto == Protocol.SIMPLE) {
            busBw = (float) (busBw * (nNodes == 2 ? 0.33 : 0.11));
        }
        if (algo == Algorithm.TREE && (proto == Protocol.LL || proto == Protocol.LL128)) {
            busBw = (float) (busBw * 0.04);
        }
        return busBw;
    }

    /** The profile's step latencies, with NCCL's POWER adjustment that favours Tree/Simple over Ring. */
    private float[][][] hwLatencies() {
        float[][][] t = new float[3][NALGO][NPROTO];
        for (int hw = 0; hw < 3; hw++) {
            for (Algorithm a : Algorithm.NCCL) {
                for (Protocol p : Protocol.values()) {
                    t[hw][a.code()][p.code()] = profile.hwLat(hw, a, p);
                }
            }
        }
        if (ctx.cpu().arch() == Cpu.ARCH_POWER) {
            // NCCL overwrites its static table here, so it sticks for the process; ours is per model.
            t[TuningProfile.HW_PCI][Algorithm.TREE.code()][Protocol.SIMPLE.code()] =
                    t[TuningProfile.HW_PCI][Algorithm.RING.code()][Protocol.SIMPLE.code()];
        }
        return t;
    }

    private static int steps(CollFunc coll, int n) {
        return switch (coll) {
            case ALL_REDUCE -> 2 * (n - 1);
            case REDUCE_SCATTER, ALL_GATHER -> n - 1;
            case BROADCAST, REDUCE -> n;
        };
    }

    private void applyEnables(TopoGraph[] graphs, Config config) {
        // LL128 (2) is "auto": enabled only where NCCL has validated it.
        int[] protoEnable = {1, 2, 1};
        int[] algoEnable = {1, 1, 1};
        String protoStr = config.string(Params.PROTO);
        if (protoStr != null) {
            Log.info(Subsys.ENV, "NCCL_PROTO set by environment to %s", protoStr);
            protoEnable = EnableList.parse(protoStr, PROTO_NAMES);
        }
        String algoStr = config.string(Params.ALGO);
        if (algoStr != null) {
            Log.info(Subsys.ENV, "NCCL_ALGO set by environment to %s", algoStr);
            algoEnable = EnableList.parse(algoStr, ALGO_NAMES);
        }
        int ring = Algorithm.RING.code();
        int tree = Algorithm.TREE.code();
        if (ctx.collNetSupport() == 0) {
            algoEnable[Algorithm.COLLNET.code()] = 0;
            if (algoEnable[ring] == 0 && algoEnable[tree] == 0) {
                algoEnable[ring] = 1;
                algoEnable[tree] = 1;
                // NCCL_ALGO=RecDbl or HalvDbl (the host engine's own) leaves Ring and Tree for what it cannot run.
                if (ctx.rank() == 0 && !HostAlgoEnable.forced(algoStr)) {
                    Log.warn("CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET");
                }
            }
        }
        boolean sameVoltaOrAmpere = (ctx.minCompCap() == 70 && ctx.maxCompCap() == 70)
                || (ctx.minCompCap() == 80 && ctx.maxCompCap() == 80);
        for (int c = 0; c < NFUNC; c++) {
            for (int a = 0; a < NALGO; a++) {
                for (int p = 0; p < NPROTO; p++) {
                    int pEnable = protoEnable[p];
                    if (pEnable == 2 && p == Protocol.LL128.code()) {
                        pEnable = graphs[a].typeInter <= PATH_PXB && graphs[a].typeIntra <= PATH_NVL && sameVoltaOrAmpere
                                ? 1 : 0;
                    }
                    if (pEnable == 0) {
                        bandwidths[c][a][p] = 0;
                    }
                    // Other collectives have only one algorithm.
                    if (c == CollFunc.ALL_REDUCE.code() && algoEnable[a] == 0) {
                        bandwidths[c][a][p] = 0;
                    }
                }
            }
        }
    }

    private void setThreadThresholds(Config config) {
        for (int a = 0; a < NALGO; a++) {
            threadThresholds[a][Protocol.LL.code()] = ThreadCounts.LL_THREAD_THRESHOLD;
            threadThresholds[a][Protocol.LL128.code()] = ThreadCounts.LL128_THREAD_THRESHOLD;
            threadThresholds[a][Protocol.SIMPLE.code()] = ThreadCounts.SIMPLE_THREAD_THRESHOLD;
        }
        threadThresholds[Algorithm.RING.code()][Protocol.LL.code()] *= ctx.nRanks();
        threadThresholds[Algorithm.COLLNET.code()][Protocol.SIMPLE.code()] = 512;
        String str = config.string(Params.THREAD_THRESHOLDS);
        if (str != null) {
            Log.info(Subsys.ENV, "NCCL_THREAD_THRESHOLDS set by environment to %s", str);
            long[] t = scanLongs(str, 2 * NPROTO);
            for (int i = 0; i < t.length; i++) {
                if (t[i] >= 0) {
                    threadThresholds[i / NPROTO][i % NPROTO] = t[i];
                }
            }
        }
        long[][] th = threadThresholds;
        Log.info(Subsys.INIT, "threadThresholds %d/%d/%d | %d/%d/%d | %d/%d/%d", th[0][0], th[0][1], th[0][2],
                th[1][0], th[1][1], th[1][2], th[2][0], th[2][1], th[2][2]);
    }

    /** {@code sscanf(str, "%ld %ld ...")}: up to {@code n} integers, -2 where scanning stopped. */
    static long[] scanLongs(String str, int n) {
        long[] out = new long[n];
        Arrays.fill(out, -2);
        int pos = 0;
        int len = str.length();
        for (int i = 0; i < n; i++) {
            while (pos < len && Character.isWhitespace(str.charAt(pos))) {
                pos++;
            }
            int start = pos;
            if (pos < len && (str.charAt(pos) == '+' || str.charAt(pos) == '-')) {
                pos++;
            }
            int digits = pos;
            while (pos < len && str.charAt(pos) >= '0' && str.charAt(pos) <= '9') {
                pos++;
            }
            if (pos == digits) {
                break;
            }
            try {
                out[i] = Long.parseLong(str.substring(start, pos));
            } catch (NumberFormatException e) {
                out[i] = str.charAt(start) == '-' ? Long.MIN_VALUE : Long.MAX_VALUE; // strtol saturates
            }
        }
        return out;
    }

    /**
     * {@code ncclTopoGetAlgoTime}: predicted time of one call.
     *
     * @param coll       the collective
     * @param nBytes     bytes ({@code count x type size}, x nRanks for AllGather and ReduceScatter)
     * @param algo       algorithm
     * @param proto      protocol
     * @param numPipeOps operations launched together (1 for a single call)
     * @param nChannels  channels the call is limited to, 0 for all of the communicator's
     * @return µs, or -1 if the combination is disabled
     */
    public float algoTime(CollFunc coll, long nBytes, Algorithm algo, Protocol proto, int numPipeOps, int nChannels) {
        float bw = bandwidth(coll, algo, proto);
        float lat = latency(coll, algo, proto);
        if (bw == 0) {
            return -1.0f;
        }
        int logSize = log2i(nBytes >>> 6);
        TuningProfile.RcclCorrections rccl = profile.rcclCorrections();
        if (rccl != null) {
            // RCCL: trees and rings corrected at every size, no per-channel scaling, no plateau.
            if (algo == Algorithm.TREE || algo == Algorithm.RING) {
                bw *= rccl.factor(algo == Algorithm.TREE, proto, logSize);
            }
        } else {
            if (algo == Algorithm.TREE && logSize < TuningProfile.CORRECTION_BUCKETS) {
                bw *= profile.treeCorrectionFactor(proto, logSize);
            }
            if (nChannels != 0) {
                bw = bw / ctx.nChannels() * nChannels;
            }
            if (algo == Algorithm.RING && proto == Protocol.SIMPLE && ctx.nNodes() > 1 && coll == CollFunc.ALL_REDUCE
                    && (double) nBytes >= ctx.nRanks() / 16.0 * 65536) {
                lat = (float) (lat * 1.9); // ring plateau
            }
        }
        // Trees pipeline aggregated operations, saving latency.
        int latCount = algo == Algorithm.RING ? numPipeOps : (numPipeOps + MAX_WORK_ELEMENTS - 1) / MAX_WORK_ELEMENTS;
        return lat * latCount + (float) nBytes / (1000 * bw);
    }

    /** {@code log2i}: floor(log2 n) for n &ge; 1, 0 below. */
    static int log2i(long n) {
        int l = 0;
        while ((n >>= 1) != 0) {
            l++;
        }
        return l;
    }

    /** @return the communicator's figures */
    public TuningContext context() {
        return ctx;
    }

    /** @return the constant tables */
    public TuningProfile profile() {
        return profile;
    }

    /**
     * @param coll  collective
     * @param algo  algorithm
     * @param proto protocol
     * @return latency (µs)
     */
    public float latency(CollFunc coll, Algorithm algo, Protocol proto) {
        return latencies[coll.code()][algo.code()][proto.code()];
    }

    /**
     * @param coll  collective
     * @param algo  algorithm
     * @param proto protocol
     * @return algorithm bandwidth (GB/s), 0 if disabled
     */
    public float bandwidth(CollFunc coll, Algorithm algo, Protocol proto) {
        return bandwidths[coll.code()][algo.code()][proto.code()];
    }

    /**
     * @param algo  algorithm
     * @param proto protocol
     * @return most threads per channel
     */
    public int maxThreads(Algorithm algo, Protocol proto) {
        return maxThreads[algo.code()][proto.code()];
    }

    /**
     * @param algo  algorithm
     * @param proto protocol
     * @return bytes per thread below which fewer channels or threads run
     */
    public long threadThreshold(Algorithm algo, Protocol proto) {
        return threadThresholds[algo.code()][proto.code()];
    }
}
