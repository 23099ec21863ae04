package org.nccl4j.core.kernel;

import org.nccl4j.core.op.CollOp;
import org.nccl4j.core.proto.Protocol;

/**
 * Chunk sizes per algorithm and protocol as NCCL's kernels and {@code computeColl} derive them
 * from the step sizes ({@code Proto::calcBytePerStep}) and thread counts. The host engine has no
 * threads, but NCCL's thread counts fix the chunk granularity, so they are kept as constants.
 */
public final class Chunks {
    /** {@code NCCL_LL_MAX_NTHREADS} (and Simple's {@code NCCL_SIMPLE_MAX_NTHREADS}). */
    static final int LL_NTHREADS = 512;
    /** {@code NCCL_LL128_MAX_NTHREADS}. */
    static final int LL128_NTHREADS = 640;
    /** Bytes per thread and grain: LL's 8, LL128's {@code SHMEM_ELEMS_PER_THREAD * DATAELEMS * 8 / LINEELEMS}. */
    static final int LL_GRAIN = 8;
    static final int LL128_GRAIN = 8 * 15 * 8 / 16;
    /** Steps per chunk of Simple ring AllReduce, ReduceScatter, AllGather ({@code *_CHUNKSTEPS}). */
    static final int SIMPLE_CHUNK_STEPS = 4;
    /** Simple tree chunks are multiples of {@code (nthreads - 2 * WARP_SIZE) * 8} words. */
    static final int SIMPLE_TREE_MIN_BYTES = (LL_NTHREADS - 64) * 8 * 8;

    private Chunks() {
    }

    /**
     * @param func      the collective
     * @param p         protocol
     * @param unit      bytes per element (1 for Broadcast and AllGather, which move bytes)
     * @param stepData  data bytes per step of the protocol
     * @param nChannels channels
     * @param bid       this channel
     * @return how a ring kernel splits its data
     */
    public static RingKernels.Split ring(CollOp.Func func, Protocol p, int unit, long stepData, int nChannels, int bid) {
        boolean manySteps = func == CollOp.Func.ALL_REDUCE || func == CollOp.Func.REDUCE_SCATTER
                || func == CollOp.Func.ALL_GATHER;
        long stepElems = stepData / unit;
        return switch (p) {
            case SIMPLE -> new RingKernels.Split(nChannels, bid, (manySteps ? SIMPLE_CHUNK_STEPS : 1) * stepElems,
                    Math.max(1, 64 / unit), false);
            case LL -> new RingKernels.Split(nChannels, bid, stepElems, LL_NTHREADS * LL_GRAIN / unit,
                    func == CollOp.Func.ALL_REDUCE);
            // NCCL halves LL128's minimum chunk for the collectives that take many steps per chunk.
            case LL128 -> new RingKernels.Split(nChannels, bid, stepElems,
                    LL128_NTHREADS * LL128_GRAIN / (manySteps ? 2 : 1) / unit, func == CollOp.Func.ALL_REDUCE);
        };
    }

    /**
     * Tree AllReduce's chunk ({@code runTreeUpDown}; for Simple {@code computeColl}'s
     * {@code lastChunkSize}, halved while the tree pipeline would have too few chunks).
     *
     * @param p         protocol
     * @param ts        element size
     * @param count     elements
     * @param stepBytes buffer bytes per step of the protocol
     * @param depth     the tree's depth
     * @param nChannels channels
     * @return elements per chunk
     */
    public static long tree(Protocol p, int ts, long count, int stepBytes, int depth, int nChannels) {
        long chunk;
        long min;
        if (p == Protocol.SIMPLE) {
            long bytes = count * ts;
            long c = stepBytes;
            while (bytes / (nChannels * c) < depth * 8L && c > 131072) {
                c /= 2;
            }
            while (bytes / (nChannels * c) < depth * 4L && c > 65536) {
                c /= 2;
            }
            while (bytes / (nChannels * c) < depth && c > 32768) {
                c /= 2;
            }
            chunk = c / ts;
            min = SIMPLE_TREE_MIN_BYTES / ts;
        } else {
            chunk = p.dataBytesPerStep(stepBytes) / ts;
            min = (p == Protocol.LL ? LL_NTHREADS * LL_GRAIN : LL128_NTHREADS * LL128_GRAIN) / ts;
        }
        if ((long) nChannels * chunk > count) {
            chunk = RingKernels.ceilDiv(count, (long) nChannels * min) * min;
        }
        return Math.max(1, chunk);
    }
}
