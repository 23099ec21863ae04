package org.nccl4j.core.wait;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.nccl4j.core.debug.Log;

/**
 * Linux futexes on 32-bit words of native memory, through {@code syscall(SYS_futex, ...)}: a
 * thread sleeps until the word changes and whoever changes it wakes the sleepers directly, in
 * this process or another one mapping the same file (shared futexes: no {@code FUTEX_PRIVATE_FLAG}).
 * Where there are none (another OS or architecture, or native access denied) {@link #AVAILABLE}
 * is false and callers park for short times instead.
 */
public final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    /** Longest sleep of a kernel's wait: it re-checks its abort flag, peer and deadline this often. */
    public static final long MAX_SLEEP_NANOS = 1_000_000;

    private static final MethodHandle SYSCALL;
    private static final long SYS_FUTEX;
    /** Whether futexes can be used here. */
    public static final boolean AVAILABLE;

    static {
        MethodHandle h = null;
        long nr = switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> 202;
            case "aarch64" -> 98;
            default -> -1;
        };
        if (nr > 0 && System.getProperty("os.name").startsWith("Linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                h = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS),
                        Linker.Option.firstVariadicArg(1));
            } catch (RuntimeException | LinkageError e) {
                Log.warn("futexes unavailable (%s): waits park for short times instead", e);
                h = null;
            }
        }
        SYSCALL = h;
        SYS_FUTEX = nr;
        AVAILABLE = h != null;
    }

    private Futex() {
    }

    /**
     * @param mem a segment
     * @return whether its words can be waited on (native memory, futexes available)
     */
    public static boolean usable(MemorySegment mem) {
        return AVAILABLE && mem.isNative();
    }

    /**
     * Sleeps while the 32-bit word at {@code mem + offset} holds {@code expected}, at most
     * {@code nanos}; returns at once if it holds something else. Spurious returns happen: the
     * caller re-checks its condition.
     *
     * @param mem      native memory ({@link #usable})
     * @param offset   of a 4-byte aligned word
     * @param expected the value to sleep on
     * @param nanos    the longest sleep
     */
    public static void await(MemorySegment mem, long offset, int expected, long nanos) {
        // A sleep comes after milliseconds of waiting: its timespec's allocation costs nothing.
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(16, 8);
            t.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
            t.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
            call(mem.address() + offset, FUTEX_WAIT, expected, t);
        }
    }

    /**
     * Wakes every thread sleeping on the word at {@code mem + offset}.
     *
     * @param mem    native memory ({@link #usable})
     * @param offset of the word
     */
    public static void wakeAll(MemorySegment mem, long offset) {
        call(mem.address() + offset, FUTEX_WAKE, Integer.MAX_VALUE, MemorySegment.NULL);
    }

    /**
     * Makes one call of each kind on a private word that no thread sleeps on and that does not
     * hold the value waited for, so both return at once. The first call through a downcall handle
     * builds its method handles (~10 ms measured on a 2-core VM): done while a communicator is
     * made, a rank's first sleep does not pay it while its peer's data arrives.
     */
    public static void link() {
        if (!AVAILABLE) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment word = a.allocate(4, 4);
            wakeAll(word, 0);
            await(word, 0, 1, 1_000_000);
        }
    }

    private static void call(long address, int op, int value, MemorySegment timeout) {
        try {
            long unused = (long) SYSCALL.invokeExact(SYS_FUTEX, address, op, value, timeout);
        } catch (Throwable t) {
            throw new IllegalStateException("futex call failed", t);
        }
    }
}
