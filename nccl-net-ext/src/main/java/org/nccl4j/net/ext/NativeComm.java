package org.nccl4j.net.ext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;

/**
 * A plugin endpoint ({@code void *comm}) with the native memory its calls need: out-pointers
 * and the one-element arrays of grouped receives, allocated once so the data path does not
 * allocate, and zeroed before each call. Data-path calls of one comm are serialised on it (the
 * SPI has them come from one thread at a time anyway) so that a close cannot free this memory
 * or the plugin's comm under a running call; requests are kept in posting order.
 */
abstract sealed class NativeComm permits NativeListenComm, NativeSendComm, NativeRecvComm {
    static final long REQUEST = 0;
    static final long DATA = 8;
    static final long SIZES = 16;
    static final long TAGS = 24;
    static final long MHANDLES = 32;
    static final long PHANDLES = 40;
    static final long DONE = 48;
    static final long SIZE = 52;
    static final long DEVCOMM = 56;
    static final long SCRATCH = 64;

    final LoadedPlugin plugin;
    final int dev;
    final MemorySegment ptr;
    final Arena arena;
    final MemorySegment scratch;
    final MemorySegment requestOut;
    final MemorySegment dataArray;
    final MemorySegment sizesArray;
    final MemorySegment tagsArray;
    final MemorySegment mhandlesArray;
    final MemorySegment phandlesArray;
    final MemorySegment doneOut;
    final MemorySegment sizeOut;
    final MemorySegment devCommOut;
    /** Memory that must live as long as the comm (a send comm's connect handle), or {@code null}. */
    private final Arena extra;

    private final NativeRequest[] ring = new NativeRequest[Net.MAX_REQUESTS];
    private int head;
    private int count;
    boolean closed;

    NativeComm(LoadedPlugin plugin, int dev, MemorySegment ptr, Arena extra) {
        this.plugin = plugin;
        this.dev = dev;
        this.ptr = ptr;
        this.extra = extra;
        this.arena = Arena.ofShared();
        this.scratch = arena.allocate(SCRATCH, 8);
        this.requestOut = scratch.asSlice(REQUEST, 8);
        this.dataArray = scratch.asSlice(DATA, 8);
        this.sizesArray = scratch.asSlice(SIZES, 8);
        this.tagsArray = scratch.asSlice(TAGS, 4);
        this.mhandlesArray = scratch.asSlice(MHANDLES, 8);
        this.phandlesArray = scratch.asSlice(PHANDLES, 8);
        this.doneOut = scratch.asSlice(DONE, 4);
        this.sizeOut = scratch.asSlice(SIZE, 4);
        this.devCommOut = scratch.asSlice(DEVCOMM, 8);
    }

    /** @return e.g. {@code send comm} */
    abstract String kind();

    /** Zeroes the scratch memory before a call. */
    final void clearScratch() {
        scratch.fill((byte) 0);
    }

    /** @return {@code *request} after a post */
    final MemorySegment postedRequest() {
        return requestOut.get(ValueLayout.ADDRESS, 0);
    }

    final void checkOpen(String call) throws NetException {
        if (closed) {
            throw new NetException(NetException.Kind.INVALID_USAGE, plugin.name + " " + call + " on a closed " + kind());
        }
    }

    // ---- requests in posting order ----

    final int inFlight() {
        return count;
    }

    final void add(NativeRequest r) {
        ring[(head + count) % ring.length] = r;
        count++;
    }

    /** @return the i-th oldest request in flight */
    final NativeRequest at(int i) {
        return ring[(head + i) % ring.length];
    }

    /** Removes {@code r} from the requests in flight, keeping the others' order. */
    final void remove(NativeRequest r) {
        int i = 0;
        while (i < count && at(i) != r) {
            i++;
        }
        if (i == count) {
            return;
        }
        for (int j = i; j < count - 1; j++) {
            ring[(head + j) % ring.length] = ring[(head + j + 1) % ring.length];
        }
        ring[(head + count - 1) % ring.length] = null;
        count--;
    }

    /** Marks the comm closed and frees its memory; called under the comm's lock after the plugin's close. */
    final void release() {
        closed = true;
        arena.close();
        if (extra != null) {
            extra.close();
        }
    }

    @Override
    public String toString() {
        return plugin.name + " " + kind() + " on device " + dev + " (0x" + Long.toHexString(ptr.address()) + ")";
    }
}
