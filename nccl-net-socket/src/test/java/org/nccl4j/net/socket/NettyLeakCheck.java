package org.nccl4j.net.socket;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After each test class of this module (registered for all of them through the service file and
 * {@code junit-platform.properties}): collects garbage so that buffers nobody released become
 * unreachable, has Netty's detector look for them (it looks when it tracks a new buffer) and fails
 * the class if any leaked ({@link RecordingLeakDetector}, PARANOID: every buffer is tracked).
 */
public final class NettyLeakCheck implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) throws InterruptedException {
        List<String> leaks = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
            for (ByteBufAllocator a : List.of(ByteBufAllocator.DEFAULT, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT)) {
                ByteBuf probe = a.directBuffer(8);
                probe.release();
                probe = a.heapBuffer(8);
                probe.release();
            }
            leaks.addAll(RecordingLeakDetector.drain());
        }
        assertEquals(List.of(), leaks, "Netty buffers leaked by " + context.getDisplayName());
    }
}
