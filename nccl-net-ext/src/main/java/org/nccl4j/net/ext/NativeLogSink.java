package org.nccl4j.net.ext;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.nccl4j.net.spi.NetLogger;
import org.nccl4j.net.spi.nativelib.NativeStrings;

/**
 * Routes plugins' log lines into nccl4j's debug log. Plugins get the shim's
 * {@code nccl4j_log} (variadic, formats with vsnprintf) as their {@code ncclDebugLogger_t}; the
 * shim calls {@link #accept} through an FFM upcall stub with the formatted text, at the
 * plugin's level ({@code NCCL_LOG_*}, the same numbers as {@link NetLogger}'s levels) and with
 * its subsystem flags. Lines go to the {@link NetLogger} of the latest {@code init}: plugins are
 * initialised once per process and keep the logger they were given.
 *
 * <p>Where an upcall would abort the JVM (once shutdown has begun, or on a thread the VM cannot
 * take, such as the one running a plugin's atexit cleanup) the shim writes the line to stderr
 * itself, in NCCL's format, if the logger's level lets it through.
 */
@SuppressWarnings("restricted") // native access is this module's purpose: --enable-native-access=org.nccl4j.net.ext
final class NativeLogSink {
    private static volatile NetLogger target = (level, subsystem, message) -> { };
    private static MemorySegment logger;
    private static MethodHandle setLevel;

    private NativeLogSink() {
    }

    /**
     * Makes {@code to} the receiver of plugin log lines.
     *
     * @param to the logger from the current {@code NetContext}
     */
    static synchronized void route(NetLogger to) {
        if (to != null) {
            target = to;
            if (setLevel != null) {
                pushLevel();
            }
        }
    }

    /** Tells the shim the highest level {@link #target} prints: what it writes to stderr itself. */
    private static void pushLevel() {
        int level = 0;
        for (int l = NetLogger.VERSION; l <= NetLogger.TRACE; l++) {
            if (target.enabled(l)) {
                level = l;
            }
        }
        try {
            setLevel.invokeExact(level);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot set the plugin log level: " + t, t);
        }
    }

    /**
     * @return the address of {@code nccl4j_log}, to hand to a plugin's {@code init}, with the
     *     sink registered
     * @throws IllegalStateException if the shim cannot be loaded
     */
    static synchronized MemorySegment loggerFunction() {
        if (logger == null) {
            MemorySegment log = NativeShim.find("nccl4j_log");
            MemorySegment setSink = NativeShim.find("nccl4j_set_log_sink");
            try {
                MethodHandle accept = MethodHandles.lookup().findStatic(NativeLogSink.class, "accept",
                        MethodType.methodType(void.class, int.class, long.class, MemorySegment.class, int.class,
                                MemorySegment.class));
                Linker linker = Linker.nativeLinker();
                MemorySegment stub = linker.upcallStub(accept, FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS), Arena.global());
                MethodHandle set = linker.downcallHandle(setSink, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
                set.invokeExact(stub);
                setLevel = linker.downcallHandle(NativeShim.find("nccl4j_set_log_level"),
                        FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
                MethodHandle shutdown = linker.downcallHandle(NativeShim.find("nccl4j_log_shutdown"), FunctionDescriptor.ofVoid());
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("nccl4j-plugin-log-shutdown").unstarted(() -> {
                    try {
                        shutdown.invokeExact();
                    } catch (Throwable ignored) {
                        // Nothing to report to at shutdown; the shim's thread check still holds.
                    }
                }));
            } catch (Throwable t) {
                throw new IllegalStateException("cannot register the plugin log sink: " + t, t);
            }
            pushLevel();
            logger = log;
        }
        return logger;
    }

    /** @return the address of {@code nccl4j_prof_noop}, v10's profiler callback */
    static MemorySegment profilerFunction() {
        return NativeShim.find("nccl4j_prof_noop");
    }

    /**
     * The upcall. Must never throw: an exception escaping an upcall ends the JVM.
     *
     * @param level NCCL log level
     * @param flags NCCL subsystem flags
     * @param file  source file, may be NULL
     * @param line  source line
     * @param msg   the formatted message
     */
    static void accept(int level, long flags, MemorySegment file, int line, MemorySegment msg) {
        try {
            NetLogger to = target;
            if (!to.enabled(level)) {
                return;
            }
            String text = NativeStrings.read(msg, 8192);
            if (text == null) {
                return;
            }
            if (level == NetLogger.WARN) {
                String f = NativeStrings.read(file, 1024);
                if (f != null) {
                    text = f.substring(f.lastIndexOf('/') + 1) + ":" + line + " " + text;
                }
            }
            to.log(level, flags, text);
        } catch (Throwable ignored) {
            // Losing a log line beats losing the process.
        }
    }
}
