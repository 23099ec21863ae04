package org.nccl4j.core.kernel;

import java.lang.foreign.MemorySegment;

/**
 * NCCL's tree AllReduce for one channel ({@code runTreeUpDown}): every chunk is reduced from
 * the leaves up to the root, then broadcast from the root back down. Counts and offsets are in
 * elements.
 */
final class TreeKernels {
    private TreeKernels() {
    }

    /**
     * @param up        primitives of the reduce phase: receive from the children, send to the parent
     * @param down      primitives of the broadcast phase: receive from the parent, send to the children
     * @param root      whether this rank has no parent
     * @param leaf      whether it has no children
     * @param in        input
     * @param out       output
     * @param count     elements
     * @param ts        element size
     * @param chunk     elements per chunk
     * @param nChannels channels
     * @param bid       this channel
     */
    static void allReduce(Prims up, Prims down, boolean root, boolean leaf, MemorySegment in, MemorySegment out,
                          long count, int ts, long chunk, int nChannels, int bid) {
        long loop = nChannels * chunk;
        for (long grid = 0; grid < count; grid += loop) {
            long off = grid + bid * chunk;
            long nelem = Math.max(0, Math.min(chunk, count - off));
            if (root) {
                up.recvReduceCopy(in, off * ts, out, off * ts, nelem, true);
            } else if (leaf) {
                up.send(in, off * ts, nelem);
            } else {
                up.recvReduceSend(in, off * ts, nelem);
            }
        }
        for (long grid = 0; grid < count; grid += loop) {
            long off = grid + bid * chunk;
            long nelem = Math.max(0, Math.min(chunk, count - off));
            if (root) {
                down.sendRaw(out, off * ts, nelem);
            } else if (leaf) {
                down.recv(out, off * ts, nelem);
            } else {
                down.recvCopySend(out, off * ts, nelem);
            }
        }
    }
}
