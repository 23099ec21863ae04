package org.nccl4j.net.ext;

import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.RecvComm;

/** A plugin's receiving endpoint. */
final class NativeRecvComm extends NativeComm implements RecvComm {
    NativeRecvComm(LoadedPlugin plugin, int dev, MemorySegment ptr) {
        super(plugin, dev, ptr, null);
    }

    @Override
    String kind() {
        return "recv comm";
    }
}
