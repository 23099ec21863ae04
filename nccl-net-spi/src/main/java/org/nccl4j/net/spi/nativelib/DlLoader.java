package org.nccl4j.net.spi.nativelib;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code dlopen}, {@code dlerror} and {@code dlsym} called directly through FFM. FFM's own
 * {@link SymbolLookup#libraryLookup} drops {@code dlerror()}'s text, which is what users need
 * ("cannot open shared object file", "version `EFA_1.2' not found"). glibc 2.34 and later has
 * these functions in libc (the default lookup); older glibc has them in {@code libdl.so.2}.
 */
@SuppressWarnings("restricted") // callers name it: --enable-native-access=org.nccl4j.net.spi (or ALL-UNNAMED)
public final class DlLoader {
    /** {@code RTLD_NOW}: resolve every symbol at load, so missing ones fail here with dlerror's text. */
    public static final int RTLD_NOW = 0x2;
    /** {@code RTLD_LOCAL}: the plugin's symbols do not leak into later loads. */
    public static final int RTLD_LOCAL = 0;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle DLOPEN;
    private static final MethodHandle DLERROR;
    private static final MethodHandle DLSYM;

    static {
        SymbolLookup libc = LINKER.defaultLookup();
        SymbolLookup lookup = libc.find("dlopen").isPresent() ? libc
                : SymbolLookup.libraryLookup("libdl.so.2", Arena.global()).or(libc);
        DLOPEN = LINKER.downcallHandle(lookup.findOrThrow("dlopen"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        DLERROR = LINKER.downcallHandle(lookup.findOrThrow("dlerror"), FunctionDescriptor.of(ValueLayout.ADDRESS));
        DLSYM = LINKER.downcallHandle(lookup.findOrThrow("dlsym"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
    }

    private DlLoader() {
    }

    /**
     * The outcome of one {@code dlopen}.
     *
     * @param library what was passed to dlopen
     * @param handle  the library handle, {@link MemorySegment#NULL} on failure
     * @param error   dlerror()'s text on failure, else {@code null}
     */
    public record Opened(String library, MemorySegment handle, String error) {
        /** @return whether the library loaded */
        public boolean ok() {
            return !handle.equals(MemorySegment.NULL);
        }
    }

    /**
     * {@code dlopen(library, RTLD_NOW | RTLD_LOCAL)}, then {@code dlerror()} on the same thread
     * if it failed.
     *
     * @param library a file name (searched as the dynamic linker does) or a path
     * @return the outcome
     */
    public static synchronized Opened open(String library) {
        try (Arena arena = Arena.ofConfined()) {
            dlerror(); // clear a stale error
            MemorySegment h = (MemorySegment) DLOPEN.invokeExact(arena.allocateFrom(library), RTLD_NOW | RTLD_LOCAL);
            if (h.equals(MemorySegment.NULL)) {
                String err = dlerror();
                return new Opened(library, MemorySegment.NULL, err == null ? "dlopen failed (no dlerror text)" : err);
            }
            return new Opened(library, h, null);
        } catch (Throwable t) {
            throw new IllegalStateException("dlopen(" + library + ") could not be called", t);
        }
    }

    /**
     * @param handle a handle from {@link #open}
     * @param symbol the symbol's name
     * @return its address, or {@link MemorySegment#NULL} if absent
     */
    public static synchronized MemorySegment symbol(MemorySegment handle, String symbol) {
        try (Arena arena = Arena.ofConfined()) {
            dlerror();
            return (MemorySegment) DLSYM.invokeExact(handle, arena.allocateFrom(symbol));
        } catch (Throwable t) {
            throw new IllegalStateException("dlsym(" + symbol + ") could not be called", t);
        }
    }

    private static String dlerror() throws Throwable {
        MemorySegment s = (MemorySegment) DLERROR.invokeExact();
        return NativeStrings.read(s, 4096);
    }
}
