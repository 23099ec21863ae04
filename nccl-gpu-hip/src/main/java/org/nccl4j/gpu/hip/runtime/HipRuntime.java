package org.nccl4j.gpu.hip.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.net.spi.nativelib.DlLoader;
import org.nccl4j.net.spi.nativelib.NativeStrings;

/**
 * The HIP runtime library, loaded once per process with every {@link HipFunction} bound. A
 * library that is missing, or lacks one of the functions, makes the backend unusable, with
 * {@code dlerror}'s words or the missing names; the failure is remembered and reported again,
 * cheaply. A failing call throws {@link NcclException} with {@link Result#UNHANDLED_DEVICE_ERROR}
 * naming the call and HIP's error ({@code hipGetErrorName}, its code and {@code hipGetErrorString}).
 */
@SuppressWarnings("restricted") // calling native code is this module's purpose: --enable-native-access
public final class HipRuntime {
    /**
     * Where the runtime is looked for, in order: the unversioned name (ROCm's {@code /opt/rocm/lib},
     * Debian's {@code libamdhip64-dev}), then ROCm 6's and ROCm 5's sonames.
     */
    public static final List<String> LIBRARIES = List.of("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5");
    /** {@code hipSuccess}. */
    public static final int SUCCESS = 0;
    /** {@code hipErrorNoDevice}: {@code hipGetDeviceCount} found none. */
    public static final int ERROR_NO_DEVICE = 100;

    private static HipRuntime loaded;
    private static String unusable;

    private final String library;
    private final Map<HipFunction, MethodHandle> handles;

    private HipRuntime(String library, Map<HipFunction, MethodHandle> handles) {
        this.library = library;
        this.handles = handles;
    }

    /**
     * Opens the runtime library and binds every {@link HipFunction}, once per process.
     *
     * @return the runtime
     * @throws DeviceUnavailableException if no {@link #LIBRARIES} name loads, or the one that
     *                                    does lacks a function; the message says which
     */
    public static synchronized HipRuntime load() throws DeviceUnavailableException {
        if (loaded == null && unusable == null) {
            try {
                loaded = bind();
            } catch (DeviceUnavailableException e) {
                unusable = e.getMessage();
            }
        }
        if (loaded == null) {
            throw new DeviceUnavailableException(unusable, null);
        }
        return loaded;
    }

    private static HipRuntime bind() throws DeviceUnavailableException {
        List<String> errors = new ArrayList<>();
        for (String name : LIBRARIES) {
            DlLoader.Opened o = DlLoader.open(name);
            if (!o.ok()) {
                errors.add(o.error());
                continue;
            }
            Map<HipFunction, MethodHandle> handles = new EnumMap<>(HipFunction.class);
            List<String> missing = new ArrayList<>();
            Linker linker = Linker.nativeLinker();
            for (HipFunction f : HipFunction.values()) {
                MemorySegment address = DlLoader.symbol(o.handle(), f.name());
                if (address.equals(MemorySegment.NULL)) {
                    missing.add(f.name());
                } else {
                    handles.put(f, linker.downcallHandle(address, f.descriptor()));
                }
            }
            if (!missing.isEmpty()) {
                throw new DeviceUnavailableException("the HIP runtime " + name + " lacks " + missing
                        + ": nccl4j needs ROCm 5.2 or later", null);
            }
            return new HipRuntime(name, handles);
        }
        throw new DeviceUnavailableException("no HIP runtime: " + String.join("; ", errors)
                + " (install ROCm, or Debian's libamdhip64-5)", null);
    }

    /** @return the library name that loaded */
    public String library() {
        return library;
    }

    /**
     * @param f a function
     * @return its bound downcall, for the backend's own calls (its descriptor is {@link HipFunction#descriptor()})
     */
    public MethodHandle handle(HipFunction f) {
        return handles.get(f);
    }

    /** @return {@code hipRuntimeGetVersion}: {@code HIP_VERSION} of the runtime (major·10⁷ + minor·10⁵ + patch) */
    public int runtimeVersion() {
        return intOut(HipFunction.hipRuntimeGetVersion);
    }

    /** @return {@code hipDriverGetVersion} (the ROCm runtime reports its own HIP version there too) */
    public int driverVersion() {
        return intOut(HipFunction.hipDriverGetVersion);
    }

    /**
     * @return {@code hipGetDeviceCount}: AMD GPUs this process sees ({@code HIP_VISIBLE_DEVICES}
     *     applies), 0 when it answers {@code hipErrorNoDevice}
     */
    public int deviceCount() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(ValueLayout.JAVA_INT);
            int e = call(() -> (int) handle(HipFunction.hipGetDeviceCount).invokeExact(n));
            if (e == ERROR_NO_DEVICE) {
                return 0;
            }
            check(HipFunction.hipGetDeviceCount, e, "");
            return n.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /**
     * @param device a device ordinal of this process
     * @return {@code hipDeviceGetPCIBusId}, lower case ({@code 0000:c1:00.0}), as NCCL keeps bus ids
     */
    public String pciBusId(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(64);
            int e = call(() -> (int) handle(HipFunction.hipDeviceGetPCIBusId).invokeExact(text, 64, device));
            check(HipFunction.hipDeviceGetPCIBusId, e, "64, " + device);
            return text.getString(0).toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param code a {@code hipError_t}
     * @return HIP's words for it: {@code hipGetErrorName (code): hipGetErrorString}, the string
     *     left out where it only repeats the name (ROCm 5.2)
     */
    public String describe(int code) {
        String name = string(HipFunction.hipGetErrorName, code);
        String text = string(HipFunction.hipGetErrorString, code);
        return name + " (" + code + ")" + (text == null || text.equals(name) ? "" : ": " + text);
    }

    /**
     * @param f       the call
     * @param code    what it returned
     * @param context its arguments, for the message
     * @throws NcclException with {@link Result#UNHANDLED_DEVICE_ERROR} unless {@code code} is {@link #SUCCESS}
     */
    public void check(HipFunction f, int code, String context) {
        if (code != SUCCESS) {
            throw NcclException.of(Result.UNHANDLED_DEVICE_ERROR, f.name() + "(" + context + "): " + describe(code),
                    "check the GPU with rocm-smi and the ROCm installation (rocminfo)");
        }
    }

    /**
     * @param v a {@code HIP_VERSION} number
     * @return it as {@code major.minor.patch}, e.g. {@code 5.2.21153}
     */
    public static String versionText(int v) {
        return v / 10_000_000 + "." + v / 100_000 % 100 + "." + v % 100_000;
    }

    private int intOut(HipFunction f) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_INT);
            check(f, call(() -> (int) handle(f).invokeExact(out)), "");
            return out.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** A downcall returning {@code hipError_t}, through {@code invokeExact}. */
    @FunctionalInterface
    interface Downcall {
        int run() throws Throwable;
    }

    /**
     * @param d the downcall
     * @return its {@code hipError_t}; the checked {@code Throwable} of {@code invokeExact}, which
     *     no HIP call throws, as an {@link IllegalStateException}
     */
    static int call(Downcall d) {
        try {
            return d.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private String string(HipFunction f, int code) {
        try {
            return NativeStrings.read((MemorySegment) handle(f).invokeExact(code), 1024);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
