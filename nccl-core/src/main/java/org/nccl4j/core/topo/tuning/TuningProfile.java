package org.nccl4j.core.topo.tuning;

import org.nccl4j.core.proto.Protocol;

/**
 * The constant tables of the tuning model: base latencies, per-hop latencies by link kind, LL
 * and tree bandwidth caps and the tree correction factors. {@link #NCCL_GPU} holds NCCL
 * v2.10.3's figures for GPUs; another backend supplies its own measured figures through the
 * constructor and shares every formula of {@link TuningModel}.
 *
 * <p>Tables are given as {@code double} literals and stored as {@code float} where NCCL declares
 * {@code float} arrays, so each entry is rounded exactly as C's initialisation rounds it.
 */
public final class TuningProfile {
    /** Link kind index of {@link #hwLat}: NVLink. */
    public static final int HW_NVLINK = 0;
    /** Link kind index of {@link #hwLat}: PCI (and anything that is not NVLink inside a node). */
    public static final int HW_PCI = 1;
    /** Link kind index of {@link #hwLat}: network. */
    public static final int HW_NET = 2;

    private static final int NALGO = 3;
    private static final int NPROTO = 3;
    /** Tree correction factor buckets: powers of two from 64 B to 256 MB. */
    static final int CORRECTION_BUCKETS = 23;
    /** No bus bandwidth cap (NCCL's GPU figures have none besides Ampere's). */
    private static final double[] NO_CAP = {Float.MAX_VALUE, Float.MAX_VALUE, Float.MAX_VALUE};

    /** NCCL v2.10.3's GPU figures. */
    public static final TuningProfile NCCL_GPU = new TuningProfile(
            "nccl-gpu",
            new double[][] {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {4.4, 4.4, 0}},
            new double[][][] {
                {{.52, 1.25, 28}, {.47, 1.9, 3.4}, {.5, 1.2, 8.0}},
                {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {1.0, 1.9, 8.0}},
                {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}, {5.0, 5.0, 10.7}}},
            20.0,
            new double[][] {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}},
            new double[][] {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}},
            new double[][] {
                {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
                {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
                {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}},
            235.0f, NO_CAP);

    /**
     * Host ranks (the host backend): nccl4j's own figures, measured with {@code nccl4j perf --op
     * allreduce} on the host backend, every algorithm/protocol pair forced in turn through
     * {@code NCCL_ALGO}/{@code NCCL_PROTO}: base latency = one rank's 8-byte call; latency per
     * step = (2-rank 8-byte time - base) / 2 steps, the NVLink row as the PCI one (host ranks
     * have none) and CollNet as Tree; NET per step likewise between two network-namespace hosts
     * over the Socket net; bus bandwidth caps = Ring/Simple's bus bandwidth at 64 MiB, LL caps =
     * Ring/LL's, the LL128 cap per channel = Ring/LL128's; tree caps per channel are twice the
     * bus caps, so that those bind. Trees get no correction. The README's "Host tuning tables"
     * lists the values (a test checks them against this profile); {@code
     * scripts/measure-host-tuning} measures them again, on an idle machine.
     */
    public static final TuningProfile HOST = new TuningProfile(
            "host",
            new double[][] {{1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}},
            new double[][][] {
                {{1.3, 1.1, 1.2}, {1.0, 1.05, 1.2}, {1.3, 1.1, 1.2}},
                {{1.3, 1.1, 1.2}, {1.0, 1.05, 1.2}, {1.3, 1.1, 1.2}},
                {{400, 400, 400}, {400, 400, 400}, {400, 400, 400}}},
            1.5,
            new double[][] {{0.69, 0.06, 0.06}, {0.69, 0.06, 0.06}},
            new double[][] {{8.6, 0.8, 0.8}, {8.6, 0.8, 0.8}},
            ones(3, CORRECTION_BUCKETS),
            Float.MAX_VALUE, new double[] {4.3, 0.4, 0.4});

    /**
     * RCCL 2.10.3's figures for AMD GPUs (ROCm/rccl tag {@code rocm-5.0.0}, {@code tuning.cc}
     * under {@code __HIPCC__}): flat base latencies, its own step latencies, no bandwidth caps, and
     * its formulas ({@link #rccl()}: fixed bus-bandwidth factors per algorithm and protocol, tree
     * and ring corrections over 25 size buckets). The LL tables, tree caps and NCCL's tree
     * corrections are unused there.
     */
    public static final TuningProfile RCCL_GPU = new TuningProfile(
            "rccl-gpu",
            new double[][] {{12.0, 12.0, 17.0}, {12.0, 12.0, 17.0}, {12.0, 12.0, 17.0}},
            new double[][][] {
                {{1.5, 1.5, 4.5}, {1.5, 1.5, 4.5}, {1.2, 1.2, 3.8}},
                {{2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}, {2.2, 2.2, 5.7}},
                {{40.0, 40.0, 50.0}, {4.0, 4.0, 25.0}, {9.8, 9.8, 19.5}}},
            20.0,
            new double[][] {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}},
            new double[][] {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}},
            ones(3, CORRECTION_BUCKETS),
            Float.MAX_VALUE, NO_CAP,
            new RcclCorrections(
                new double[][] {
                    {0.7, 0.7, 0.7, 0.6, 0.6, 0.3, 0.9, 0.5, 0.5, 0.6, 0.5, 0.5, 0.8, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.9,
                        0.9, 1.0, 1.0, 1.0, 1.0},
                    {0.7, 0.7, 0.7, 0.6, 0.6, 0.3, 0.9, 0.5, 0.5, 0.6, 0.5, 0.5, 0.8, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.9,
                        0.9, 1.0, 1.0, 1.0, 1.0},
                    {0.4, 0.4, 0.3, 0.3, 0.2, 0.5, 0.5, 0.7, 0.2, 0.2, 0.3, 0.6, 0.7, 1.0, 1.3, 1.0, 1.2, 1.2, 1.1, 1.1,
                        1.2, 1.2, 1.5, 1.7, 2.4}},
                new double[][] {
                    {0.4, 0.6, 0.6, 0.3, 0.2, 0.2, 0.2, 0.2, 0.4, 0.6, 0.7, 0.9, 1.4, 1.5, 1.0, 0.8, 0.7, 0.8, 0.8, 0.9,
                        0.9, 0.9, 0.9, 0.9, 0.9},
                    {0.4, 0.6, 0.6, 0.3, 0.2, 0.2, 0.2, 0.2, 0.4, 0.6, 0.7, 0.9, 1.4, 1.5, 1.0, 0.8, 0.7, 0.8, 0.8, 0.9,
                        0.9, 0.9, 0.9, 0.9, 0.9},
                    {0.6, 0.4, 0.4, 0.4, 0.2, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.3, 0.4, 0.6,
                        0.8, 0.9, 1.1, 2.0, 2.9}}));

    /**
     * RCCL's per-size bandwidth corrections: {@code [proto][log2(bytes / 64)]}, 25 buckets, the
     * last one for every larger size, for trees and for rings.
     *
     * @param tree tree corrections
     * @param ring ring corrections
     */
    record RcclCorrections(double[][] tree, double[][] ring) {
        /** Buckets of RCCL's correction tables. */
        static final int BUCKETS = 25;

        float factor(boolean tree, Protocol p, int logSize) {
            return (float) (tree ? this.tree : ring)[p.code()][Math.min(logSize, BUCKETS - 1)];
        }
    }

    private final String name;
    private final RcclCorrections rccl;
    private final float[][] baseLat;
    private final float[][][] hwLat;
    private final double ll128MaxBwPerCh;
    private final double[][] llMaxBws;
    private final double[][] perChMaxTreeBws;
    private final float[][] treeCorrectionFactor;
    private final float ampereBusBwCap;
    private final float[] maxBusBws;

    /**
     * @param name                 a label for logs
     * @param baseLat              {@code [algo][proto]} base latency (µs)
     * @param hwLat                {@code [hw][algo][proto]} latency per step (µs), hw = NVLINK, PCI, NET
     * @param ll128MaxBwPerCh      LL128 bandwidth cap per channel (GB/s)
     * @param llMaxBws             LL bandwidth cap {@code [index1][index2]}: index1 = (one node ? compute
     *                             capability 8.0 : AMD CPU), index2 = min(nNodes, 3) - 1
     * @param perChMaxTreeBws      tree bandwidth cap per channel {@code [cc8.0][index2]}
     * @param treeCorrectionFactor {@code [proto][log2(bytes / 64)]}, 23 buckets
     * @param ampereBusBwCap       bus bandwidth cap when every GPU has compute capability 8.0 (GB/s)
     * @param maxBusBws            bus bandwidth cap of every call by index2 (GB/s): what the devices move at
     *                             most, whatever the links' widths say (none for GPUs)
     */
    public TuningProfile(String name, double[][] baseLat, double[][][] hwLat, double ll128MaxBwPerCh,
                         double[][] llMaxBws, double[][] perChMaxTreeBws, double[][] treeCorrectionFactor,
                         float ampereBusBwCap, double[] maxBusBws) {
        this(name, baseLat, hwLat, ll128MaxBwPerCh, llMaxBws, perChMaxTreeBws, treeCorrectionFactor, ampereBusBwCap,
                maxBusBws, null);
    }

    private TuningProfile(String name, double[][] baseLat, double[][][] hwLat, double ll128MaxBwPerCh,
                          double[][] llMaxBws, double[][] perChMaxTreeBws, double[][] treeCorrectionFactor,
                          float ampereBusBwCap, double[] maxBusBws, RcclCorrections rccl) {
        this.name = name;
        this.rccl = rccl;
        this.baseLat = toFloat(baseLat, NALGO, NPROTO);
        this.hwLat = new float[3][][];
        for (int hw = 0; hw < 3; hw++) {
            this.hwLat[hw] = toFloat(hwLat[hw], NALGO, NPROTO);
        }
        this.ll128MaxBwPerCh = ll128MaxBwPerCh;
        this.llMaxBws = copy(llMaxBws, 2, 3);
        this.perChMaxTreeBws = copy(perChMaxTreeBws, 2, 3);
        this.treeCorrectionFactor = toFloat(treeCorrectionFactor, NPROTO, CORRECTION_BUCKETS);
        this.ampereBusBwCap = ampereBusBwCap;
        this.maxBusBws = toFloat(new double[][] {maxBusBws}, 1, 3)[0];
    }

    /** @return whether the model applies RCCL's formulas for AMD GPUs ({@link #RCCL_GPU}) instead of NCCL's */
    public boolean rccl() {
        return rccl != null;
    }

    /** @return RCCL's corrections, or {@code null} for NCCL's formulas */
    RcclCorrections rcclCorrections() {
        return rccl;
    }

    /** @return the profile's label */
    public String name() {
        return name;
    }

    /**
     * @param a algorithm
     * @param p protocol
     * @return base latency (µs)
     */
    public float baseLat(Algorithm a, Protocol p) {
        return baseLat[a.code()][p.code()];
    }

    /**
     * @param hw {@link #HW_NVLINK}, {@link #HW_PCI} or {@link #HW_NET}
     * @param a  algorithm
     * @param p  protocol
     * @return latency per step (µs)
     */
    public float hwLat(int hw, Algorithm a, Protocol p) {
        return hwLat[hw][a.code()][p.code()];
    }

    /** @return LL128 bandwidth cap per channel (GB/s) */
    public double ll128MaxBwPerCh() {
        return ll128MaxBwPerCh;
    }

    /**
     * @param index1 see the constructor
     * @param index2 see the constructor
     * @return LL bandwidth cap (GB/s)
     */
    public double llMaxBw(int index1, int index2) {
        return llMaxBws[index1][index2];
    }

    /**
     * @param compCap80 1 if every GPU has compute capability 8.0
     * @param index2    see the constructor
     * @return tree bandwidth cap per channel (GB/s)
     */
    public double perChMaxTreeBw(int compCap80, int index2) {
        return perChMaxTreeBws[compCap80][index2];
    }

    /**
     * @param p       protocol
     * @param logSize {@code log2(bytes / 64)}, below 23
     * @return the tree bandwidth correction
     */
    public float treeCorrectionFactor(Protocol p, int logSize) {
        return treeCorrectionFactor[p.code()][logSize];
    }

    /**
     * @param index2 {@code min(nNodes, 3) - 1}
     * @return bus bandwidth cap of every call (GB/s)
     */
    public float maxBusBw(int index2) {
        return maxBusBws[index2];
    }

    /** @return bus bandwidth cap with compute capability 8.0 GPUs (GB/s) */
    public float ampereBusBwCap() {
        return ampereBusBwCap;
    }

    private static double[][] ones(int rows, int cols) {
        double[][] t = new double[rows][cols];
        for (double[] row : t) {
            java.util.Arrays.fill(row, 1.0);
        }
        return t;
    }

    private static float[][] toFloat(double[][] t, int rows, int cols) {
        float[][] out = new float[rows][cols];
        for (int i = 0; i < rows; i++) {
            if (t[i].length != cols) {
                throw new IllegalArgumentException("table row " + i + " has " + t[i].length + " entries, expected " + cols);
            }
            for (int j = 0; j < cols; j++) {
                out[i][j] = (float) t[i][j];
            }
        }
        return out;
    }

    private static double[][] copy(double[][] t, int rows, int cols) {
        double[][] out = new double[rows][];
        for (int i = 0; i < rows; i++) {
            if (t[i].length != cols) {
                throw new IllegalArgumentException("table row " + i + " has " + t[i].length + " entries, expected " + cols);
            }
            out[i] = t[i].clone();
        }
        return out;
    }
}
