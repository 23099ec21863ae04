package org.nccl4j.core.shm;

import java.lang.foreign.MemorySegment;

/**
 * Where a receive connection reads the Simple steps its sender posted in place: the sender's
 * {@link SharedMemory} mapped here ({@link PeerMappings}, a sender in another process), or the
 * sender's memory as it is ({@link #SAME_PROCESS}, a sender in this process: NCCL's P2P direct
 * pointers).
 */
public interface InPlaceSource extends AutoCloseable {
    /**
     * A sender in this process: its posts carry the data's address as their offset, and this
     * process's whole address space (read-only) holds it. A plain native segment, as the
     * connections' buffers are, so the kernels' loops see one segment class.
     */
    InPlaceSource SAME_PROCESS = new InPlaceSource() {
        private final MemorySegment everything = MemorySegment.NULL.reinterpret(Long.MAX_VALUE).asReadOnly();

        @Override
        public MemorySegment map(long id, int fd) {
            return everything;
        }

        @Override
        public void close() {
        }
    };

    /**
     * @param id the sender's allocation ({@link SharedMemory.Allocation#id}), or 0 from this process
     * @param fd its descriptor in the sender, or -1 from this process
     * @return read-only memory holding the posted data
     */
    MemorySegment map(long id, int fd);

    @Override
    void close();
}
