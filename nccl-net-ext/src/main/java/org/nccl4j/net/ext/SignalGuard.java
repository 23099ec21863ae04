package org.nccl4j.net.ext;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Protects the JVM's handlers for the signals HotSpot relies on (SIGSEGV for implicit null
 * checks and safepoint polls, SIGBUS, SIGILL, SIGFPE) from native libraries that replace them
 * while loading or initialising (PSM's {@code libinfinipath}, pulled in by some libfabric builds,
 * installs its own at {@code dlopen}). {@link #snapshot()} saves the current
 * {@code struct sigaction} of each; {@link Snapshot#restoreChanged()} compares the handler
 * addresses afterwards, reinstalls the saved struct for every one that changed, and names them.
 *
 * <p>{@code sigaction} is called through FFM. {@code struct sigaction} on Linux x86-64 (glibc)
 * is 152 bytes with the handler ({@code sa_handler}/{@code sa_sigaction}, one word) at offset 0;
 * the saved struct is passed back verbatim, so mask and flags need no decoding.
 */
@SuppressWarnings("restricted") // native access is this module's purpose: --enable-native-access=org.nccl4j.net.ext
final class SignalGuard {
    /** The signals checked, by number (Linux x86-64). */
    static final int[] SIGNALS = {11, 7, 4, 8};
    private static final String[] NAMES = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE"};
    /** {@code sizeof(struct sigaction)} on Linux x86-64 glibc, rounded up for safety. */
    private static final long SIGACTION_SIZE = 256;

    /** The fix printed when a handler was replaced. */
    static final String FIX = "set IPATH_NO_BACKTRACE=1 in the environment before starting the JVM (PSM's libinfinipath "
            + "installs its backtrace handlers otherwise), or preload HotSpot's signal-chaining library: "
            + "LD_PRELOAD=$JAVA_HOME/lib/libjsig.so";

    private static final MethodHandle SIGACTION = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().findOrThrow("sigaction"),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS));

    private SignalGuard() {
    }

    /** The saved handlers of {@link #SIGNALS}. */
    static final class Snapshot {
        private final MemorySegment[] saved = new MemorySegment[SIGNALS.length];

        private Snapshot() {
        }

        /**
         * Puts back every handler that differs from the saved one.
         *
         * @return the names of the signals whose handler had been replaced (and is now restored)
         */
        List<String> restoreChanged() {
            List<String> changed = new ArrayList<>();
            try (Arena arena = Arena.ofConfined()) {
                for (int i = 0; i < SIGNALS.length; i++) {
                    MemorySegment now = arena.allocate(SIGACTION_SIZE, 8);
                    if (query(SIGNALS[i], now) != 0) {
                        continue;
                    }
                    long before = saved[i].get(ValueLayout.JAVA_LONG, 0);
                    long after = now.get(ValueLayout.JAVA_LONG, 0);
                    if (before != after) {
                        changed.add(NAMES[i]);
                        install(SIGNALS[i], saved[i]);
                    }
                }
            }
            return changed;
        }
    }

    /** @return the current handlers of {@link #SIGNALS} */
    static Snapshot snapshot() {
        Snapshot s = new Snapshot();
        for (int i = 0; i < SIGNALS.length; i++) {
            MemorySegment m = Arena.global().allocate(SIGACTION_SIZE, 8);
            query(SIGNALS[i], m);
            s.saved[i] = m;
        }
        return s;
    }

    /**
     * @param signal a signal number
     * @return the address of its current handler (0 = SIG_DFL, 1 = SIG_IGN)
     */
    static long handler(int signal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(SIGACTION_SIZE, 8);
            query(signal, m);
            return m.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /**
     * The error text for a library that replaced handlers.
     *
     * @param library what was loaded
     * @param when    {@code "dlopen"} or {@code "init"}
     * @param signals the replaced signals' names
     * @return the message
     */
    static String message(String library, String when, List<String> signals) {
        return library + " replaced the JVM's " + String.join("/", signals) + " handler" + (signals.size() == 1 ? "" : "s")
                + " during " + when + " (the library or one it depends on installs its own); the JVM's handler"
                + (signals.size() == 1 ? " was" : "s were") + " restored and the plugin is not used, since the JVM would"
                + " crash at its next implicit null check. Fix: " + FIX;
    }

    private static int query(int signal, MemorySegment out) {
        try {
            return (int) SIGACTION.invokeExact(signal, MemorySegment.NULL, out);
        } catch (Throwable t) {
            throw new IllegalStateException("sigaction(" + signal + ") could not be called", t);
        }
    }

    private static void install(int signal, MemorySegment action) {
        try {
            int rc = (int) SIGACTION.invokeExact(signal, action, MemorySegment.NULL);
            if (rc != 0) {
                throw new IllegalStateException("sigaction(" + signal + ") could not restore the JVM's handler");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sigaction(" + signal + ") could not be called", t);
        }
    }
}
