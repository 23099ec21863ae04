package org.nccl4j.net.ext;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.nccl4j.net.spi.NetException;

/**
 * A plugin library that loaded, with the newest {@code ncclNet} version it exports bound.
 * {@link #init()} runs the plugin's {@code init} once per process (a second init may fail in
 * real plugins); its outcome, success or failure, is kept and replayed.
 */
final class LoadedPlugin {
    final String library;
    final MemorySegment handle;
    final NetAbi abi;
    final PluginTable table;
    final String name;
    final List<Integer> netVersions;
    final List<Integer> collNetVersions;

    private boolean initialised;
    private String initFailure;
    private int deviceCount;
    private PluginDevice[] deviceList;

    LoadedPlugin(String library, MemorySegment handle, NetAbi abi, PluginTable table, String name,
                 List<Integer> netVersions, List<Integer> collNetVersions) {
        this.library = library;
        this.handle = handle;
        this.abi = abi;
        this.table = table;
        this.name = name;
        this.netVersions = netVersions;
        this.collNetVersions = collNetVersions;
    }

    /** @return e.g. {@code Fixture (ncclNetPlugin_v10 in libnccl-net-fixture.so)} */
    String describe() {
        return name + " (" + abi.symbol() + " in " + library + ")";
    }

    /**
     * Initialises the plugin, once per process; later calls repeat the first outcome.
     *
     * @throws NetException with the reason if the plugin's init failed or replaced the JVM's signal handlers
     */
    synchronized void init() throws NetException {
        if (initialised) {
            return;
        }
        if (initFailure != null) {
            throw new NetException(NetException.Kind.SYSTEM, initFailure);
        }
        MemorySegment logger;
        MemorySegment profiler;
        try {
            logger = NativeLogSink.loggerFunction();
            profiler = abi.version >= 10 ? NativeLogSink.profilerFunction() : MemorySegment.NULL;
        } catch (IllegalStateException e) {
            // Not cached: putting the classifier jar on the class path and retrying is legitimate.
            throw new NetException(NetException.Kind.SYSTEM, "cannot initialise " + describe() + ": " + e.getMessage());
        }
        SignalGuard.Snapshot before = SignalGuard.snapshot();
        int rc;
        try {
            rc = abi.version >= 10 ? (int) table.init.invokeExact(logger, profiler) : (int) table.init.invokeExact(logger);
        } catch (Throwable t) {
            throw fail("init could not be called: " + t);
        }
        List<String> replaced = before.restoreChanged();
        if (!replaced.isEmpty()) {
            throw fail(SignalGuard.message(library, name + "'s init", replaced));
        }
        if (rc != 0) {
            throw fail(describe() + " init returned " + NcclResult.describe(rc));
        }
        int n;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT);
            rc = (int) table.devices.invokeExact(out);
            n = out.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw fail("devices could not be called: " + t);
        }
        if (rc != 0) {
            throw fail(describe() + " devices returned " + NcclResult.describe(rc));
        }
        if (n < 0 || n > 1024) {
            throw fail(describe() + " devices reported " + n + " devices");
        }
        deviceCount = n;
        deviceList = new PluginDevice[n];
        initialised = true;
    }

    private NetException fail(String message) {
        initFailure = message;
        return new NetException(NetException.Kind.SYSTEM, message);
    }

    /** @return the outcome of init so far, for reports */
    synchronized String initStatus() {
        if (initialised) {
            return "init ok, " + deviceCount + " device" + (deviceCount == 1 ? "" : "s");
        }
        return initFailure != null ? "init failed: " + initFailure : "not initialised yet";
    }

    /** @return the device count (after {@link #init()}) */
    synchronized int deviceCount() {
        return deviceCount;
    }

    /**
     * @param dev a valid device index
     * @return its properties, read once
     * @throws NetException if getProperties fails
     */
    synchronized PluginDevice device(int dev) throws NetException {
        if (!initialised) {
            throw new NetException(NetException.Kind.INVALID_USAGE, name + ": init first");
        }
        if (dev < 0 || dev >= deviceCount) {
            throw new NetException(NetException.Kind.INVALID_ARGUMENT,
                    name + ": device " + dev + " does not exist (" + deviceCount + " device" + (deviceCount == 1 ? "" : "s") + ")");
        }
        PluginDevice d = deviceList[dev];
        if (d == null) {
            int rc;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment props = arena.allocate(abi.propertiesLayout()); // zeroed: some plugins skip fields
                rc = (int) table.getProperties.invokeExact(dev, props);
                if (rc == 0) {
                    d = abi.readProperties(props, dev);
                }
            } catch (Throwable t) {
                throw new NetException(NetException.Kind.INTERNAL, name + " getProperties(" + dev + ") could not be called: " + t);
            }
            if (rc != 0) {
                throw NcclResult.failure(rc, name + " getProperties(" + dev + ")");
            }
            deviceList[dev] = d;
        }
        return d;
    }
}
