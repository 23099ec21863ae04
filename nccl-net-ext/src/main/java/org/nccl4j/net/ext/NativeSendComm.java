package org.nccl4j.net.ext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.SendComm;

/** A plugin's sending endpoint; keeps the memory of the handle it connected with until closed. */
final class NativeSendComm extends NativeComm implements SendComm {
    NativeSendComm(LoadedPlugin plugin, int dev, MemorySegment ptr, Arena handleMemory) {
        super(plugin, dev, ptr, handleMemory);
    }

    @Override
    String kind() {
        return "send comm";
    }
}
