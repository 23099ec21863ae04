package org.nccl4j.core.debug;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Supplier;
import org.nccl4j.core.host.HostIdentity;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;

/**
 * NCCL's debug log ({@code NCCL_DEBUG}, {@code NCCL_DEBUG_SUBSYS}, {@code NCCL_DEBUG_FILE}) with
 * NCCL's line format, also routed to {@link System.Logger} {@code org.nccl4j} so an application's
 * logging framework receives the lines.
 */
public final class DebugLog {
    private static final StackWalker WALKER = StackWalker.getInstance();
    private static final ThreadLocal<int[]> DEVICE = ThreadLocal.withInitial(() -> new int[] {0});

    private final Level level;
    private final long mask;
    private final PrintStream out;
    private final System.Logger logger;
    private final String host;
    private final long pid;
    private final long startNanos = System.nanoTime();

    /**
     * @param level  the highest level printed
     * @param mask   the subsystems printed
     * @param out    where lines go
     * @param logger where lines are also sent, or {@code null}
     */
    public DebugLog(Level level, long mask, PrintStream out, System.Logger logger) {
        this.level = level;
        this.mask = mask;
        this.out = out;
        this.logger = logger;
        this.host = LogFormat.shortHost(HostIdentity.hostname());
        this.pid = ProcessHandle.current().pid();
    }

    /**
     * @param config parameters to read
     * @return the log those parameters describe
     */
    public static DebugLog fromConfig(Config config) {
        Level level = Level.parse(config.string(Params.DEBUG));
        long mask = Subsys.parse(config.string(Params.DEBUG_SUBSYS));
        PrintStream out = System.out;
        String file = config.string(Params.DEBUG_FILE);
        if (file != null && level.compareTo(Level.VERSION) > 0) {
            String name = LogFormat.expandFileName(file, LogFormat.shortHost(HostIdentity.hostname()),
                    ProcessHandle.current().pid());
            try {
                out = new PrintStream(new FileOutputStream(name), true, StandardCharsets.UTF_8);
            } catch (IOException e) {
                System.out.println("NCCL_DEBUG_FILE " + name + " cannot be opened (" + e.getMessage() + "); logging to stdout");
            }
        }
        return new DebugLog(level, mask, out, routedLogger(config.string(Params.DEBUG_LOGGER)));
    }

    private static System.Logger routedLogger(String mode) {
        String m = mode == null ? "auto" : mode.toLowerCase(Locale.ROOT);
        boolean on = switch (m) {
            case "on", "1", "true" -> true;
            case "off", "0", "false" -> false;
            // The JDK's own finder prints to stderr through java.util.logging: routing there
            // would print every line twice, so auto routes only to an installed framework.
            default -> !isJdkDefault(System.LoggerFinder.getLoggerFinder().getClass().getName());
        };
        return on ? System.getLogger("org.nccl4j") : null;
    }

    private static boolean isJdkDefault(String finder) {
        return finder.startsWith("jdk.internal.") || finder.startsWith("sun.util.logging.");
    }

    /**
     * Sets the device number this thread's lines show in brackets (NCCL's {@code cudaDev}).
     *
     * @param device the device index of the rank the thread works for
     */
    public static void setThreadDevice(int device) {
        DEVICE.get()[0] = device;
    }

    /** @return the level in effect */
    public Level level() {
        return level;
    }

    /**
     * @param lvl   a level
     * @param flags subsystems
     * @return whether a line at that level for those subsystems is printed
     */
    public boolean enabled(Level lvl, long flags) {
        return lvl.compareTo(level) <= 0 && (flags & mask) != 0;
    }

    /**
     * Logs an INFO line.
     *
     * @param flags subsystems
     * @param fmt   {@link String#format} pattern
     * @param args  its arguments
     */
    public void info(long flags, String fmt, Object... args) {
        log(Level.INFO, flags, () -> format(fmt, args));
    }

    /**
     * Logs a WARN line (subsystem ALL, so it passes every mask).
     *
     * @param fmt  {@link String#format} pattern
     * @param args its arguments
     */
    public void warn(String fmt, Object... args) {
        log(Level.WARN, Subsys.ALL, () -> format(fmt, args));
    }

    /**
     * Logs a TRACE line.
     *
     * @param flags subsystems
     * @param fmt   {@link String#format} pattern
     * @param args  its arguments
     */
    public void trace(long flags, String fmt, Object... args) {
        log(Level.TRACE, flags, () -> format(fmt, args));
    }

    /**
     * Logs a line at any level; the message is built only if it is printed or routed.
     *
     * @param lvl   the level
     * @param flags subsystems
     * @param msg   the message
     */
    public void log(Level lvl, long flags, Supplier<String> msg) {
        boolean print = enabled(lvl, flags);
        System.Logger.Level jl = julLevel(lvl);
        boolean route = logger != null && (flags & mask) != 0 && logger.isLoggable(jl);
        if (!print && !route) {
            return;
        }
        String text = msg.get();
        if (text.length() > 1023) {
            text = text.substring(0, 1023); // NCCL formats into 1024 bytes
        }
        if (print) {
            long tid = Thread.currentThread().threadId();
            int dev = DEVICE.get()[0];
            String line = switch (lvl) {
                case WARN -> LogFormat.warn(host, pid, tid, dev, callSite(), text);
                case TRACE -> LogFormat.trace(host, pid, tid, dev, (System.nanoTime() - startNanos) / 1e6, callSite(), text);
                default -> LogFormat.info(host, pid, tid, dev, text);
            };
            synchronized (out) {
                out.println(line);
                out.flush();
            }
        }
        if (route) {
            logger.log(jl, text);
        }
    }

    private static System.Logger.Level julLevel(Level lvl) {
        return switch (lvl) {
            case WARN, ABORT -> System.Logger.Level.WARNING;
            case TRACE -> System.Logger.Level.TRACE;
            default -> System.Logger.Level.INFO;
        };
    }

    private static String format(String fmt, Object... args) {
        return args.length == 0 ? fmt : String.format(fmt, args);
    }

    /** The first frame outside the logging classes, as {@code File.java:line}. */
    private static String callSite() {
        return WALKER.walk(frames -> frames
                .filter(f -> !f.getClassName().equals(DebugLog.class.getName())
                        && !f.getClassName().equals(Log.class.getName()))
                .findFirst()
                .map(f -> f.getFileName() + ":" + f.getLineNumber())
                .orElse("?"));
    }
}
