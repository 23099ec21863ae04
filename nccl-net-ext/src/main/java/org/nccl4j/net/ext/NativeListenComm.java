package org.nccl4j.net.ext;

import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.ListenComm;

/** A plugin's listening endpoint. */
final class NativeListenComm extends NativeComm implements ListenComm {
    NativeListenComm(LoadedPlugin plugin, int dev, MemorySegment ptr) {
        super(plugin, dev, ptr, null);
    }

    @Override
    String kind() {
        return "listen comm";
    }
}
