package org.nccl4j.net.ext;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * nccl-net-ext's own small native library ({@code src/main/c/nccl4j_netext.c}: the variadic
 * logger shim and the v10 profiler no-op), loaded as Netty loads its natives: looked up on the
 * class path as {@value #RESOURCE} (shipped in the {@code linux-x86_64} classifier jar), copied
 * to a temporary file, loaded from there. Loaded once per process, on the first plugin init.
 */
@SuppressWarnings("restricted") // native access is this module's purpose: --enable-native-access=org.nccl4j.net.ext
final class NativeShim {
    /** Where the library lies on the class path. */
    static final String RESOURCE = "META-INF/native/libnccl4j_netext_linux_x86_64.so";

    private static SymbolLookup lookup;
    private static String failure;

    private NativeShim() {
    }

    /**
     * @param symbol a symbol of the shim
     * @return its address
     * @throws IllegalStateException with the reason and the fix if the shim cannot be loaded
     */
    static synchronized MemorySegment find(String symbol) {
        if (lookup == null) {
            if (failure == null) {
                try {
                    lookup = load();
                } catch (IOException | RuntimeException e) {
                    failure = e.getMessage();
                }
            }
            if (lookup == null) {
                throw new IllegalStateException(failure);
            }
        }
        return lookup.find(symbol).orElseThrow(() -> new IllegalStateException(
                "the native shim " + RESOURCE + " has no symbol " + symbol + " (a stale copy on the class path?)"));
    }

    private static SymbolLookup load() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("native net plugins need Linux x86-64; this is " + os + " " + arch);
        }
        ClassLoader cl = NativeShim.class.getClassLoader();
        try (InputStream in = cl == null ? ClassLoader.getSystemResourceAsStream(RESOURCE) : cl.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("nccl-net-ext's native shim " + RESOURCE + " is not on the class path: add "
                        + "org.nccl4j:nccl-net-ext with <classifier>linux-x86_64</classifier> next to org.nccl4j:nccl-net-ext");
            }
            Path tmp = Files.createTempFile("libnccl4j_netext_linux_x86_64", ".so");
            tmp.toFile().deleteOnExit();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            // The temporary copy is mapped once loaded; Netty deletes it right away, so do we.
            SymbolLookup l = SymbolLookup.libraryLookup(tmp, Arena.global());
            Files.deleteIfExists(tmp);
            return l;
        }
    }
}
