package org.nccl4j.net.spi.nativelib;

import java.lang.foreign.MemorySegment;

/** Reading C strings a native library hands over, bounded so a missing terminator cannot run away. */
@SuppressWarnings("restricted") // callers name it: --enable-native-access=org.nccl4j.net.spi (or ALL-UNNAMED)
public final class NativeStrings {
    private NativeStrings() {
    }

    /**
     * @param ptr a {@code const char *}
     * @param max the most bytes to look at for the terminator
     * @return the string, {@code null} for NULL, or a marker if no terminator is found in {@code max} bytes
     */
    public static String read(MemorySegment ptr, int max) {
        if (ptr == null || ptr.equals(MemorySegment.NULL)) {
            return null;
        }
        MemorySegment s = ptr.reinterpret(max);
        for (int i = 0; i < max; i++) {
            if (s.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) == 0) {
                return s.getString(0);
            }
        }
        return new String(s.asSlice(0, Math.min(max, 64)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                java.nio.charset.StandardCharsets.UTF_8) + "...(unterminated)";
    }
}
