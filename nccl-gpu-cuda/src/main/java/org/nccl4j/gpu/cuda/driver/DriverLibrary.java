package org.nccl4j.gpu.cuda.driver;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Asks the dynamic linker for {@code libcuda.so.1} ({@code dlopen}, then {@code dlerror} for its
 * own words) before the JavaCPP bindings are touched. Where there is no NVIDIA driver, loading
 * the bindings to fail on the same library costs ~85 ms in every JVM and first extracts
 * {@code libjnicudart.so} (2.3 MB) into {@code ~/.javacpp/cache}; this costs ~5 ms in a JVM that
 * already made FFM downcalls (nccl-net-ext's plugin search does, and initNet runs before the
 * device backend is chosen) and ~110 ms in one that made none (measured on the 2-core dev VM).
 * The library stays open when found: the bindings load it next anyway.
 */
@SuppressWarnings("restricted") // calling native code is this module's purpose: --enable-native-access
final class DriverLibrary {
    /** The driver's library, as libjnicudart.so names it (DT_NEEDED). */
    static final String NAME = "libcuda.so.1";
    private static final int RTLD_NOW = 0x2;

    private DriverLibrary() {
    }

    /** @return {@code null} if {@code libcuda.so.1} loads, else dlerror's text */
    static String openError() {
        return openError(NAME);
    }

    /**
     * @param name a shared library's name
     * @return {@code null} if it loads (or dlopen cannot be called), else dlerror's text
     */
    static String openError(String name) {
        try (Arena arena = Arena.ofConfined()) {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            MethodHandle dlopen = linker.downcallHandle(libc.findOrThrow("dlopen"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            MethodHandle dlerror = linker.downcallHandle(libc.findOrThrow("dlerror"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS));
            MemorySegment handle = (MemorySegment) dlopen.invokeExact(arena.allocateFrom(name), RTLD_NOW);
            if (!handle.equals(MemorySegment.NULL)) {
                return null;
            }
            MemorySegment error = (MemorySegment) dlerror.invokeExact();
            return error.equals(MemorySegment.NULL) ? "dlopen failed without a message"
                    : error.reinterpret(4096).getString(0);
        } catch (RuntimeException | LinkageError e) {
            // glibc before 2.34 keeps dlopen in libdl.so.2: the bindings' own load says what is wrong.
            return null;
        } catch (Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("dlopen(" + name + ") could not be called", t);
        }
    }
}
