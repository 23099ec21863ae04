package org.nccl4j.gpu.cuda.driver;

import static org.bytedeco.cuda.global.cudart.cuDeviceGet;
import static org.bytedeco.cuda.global.cudart.cuDeviceGetAttribute;
import static org.bytedeco.cuda.global.cudart.cuDeviceGetCount;
import static org.bytedeco.cuda.global.cudart.cuDeviceGetName;
import static org.bytedeco.cuda.global.cudart.cuDeviceGetPCIBusId;
import static org.bytedeco.cuda.global.cudart.cuDevicePrimaryCtxRetain;
import static org.bytedeco.cuda.global.cudart.cuDeviceTotalMem;
import static org.bytedeco.cuda.global.cudart.cuInit;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.SizeTPointer;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.net.spi.nativelib.DlLoader;

/**
 * The CUDA driver API ({@code cu*} functions) as this backend uses it, through JavaCPP's CUDA
 * presets ({@code org.bytedeco.cuda.global.cudart} binds the driver API too; the versioned
 * entry points such as {@code cuMemAlloc_v2} are what its {@code cuMemAlloc} calls). Only
 * driver functions are called: the presets also import CUDA runtime functions that older
 * runtimes lack, bound lazily, and calling one of those would end the JVM.
 *
 * <p>{@link #load()} runs once per process; a failure is remembered and reported again, cheaply.
 * Every failing call throws {@link NcclException} with {@link Result#UNHANDLED_DEVICE_ERROR}
 * naming the call, its arguments and the driver's error.
 */
public final class CudaDriver {
    /** The driver's library, as libjnicudart.so names it (DT_NEEDED). */
    static final String DRIVER_LIBRARY = "libcuda.so.1";
    private static CudaDriver loaded;
    private static String unusable;
    private static Throwable unusableCause;

    private final int[] devices;
    private final CudaContext[] contexts;

    private CudaDriver(int[] devices) {
        this.devices = devices;
        this.contexts = new CudaContext[devices.length];
    }

    /**
     * Loads the bindings and initialises the driver ({@code cuInit(0)}), once per process.
     *
     * @return the driver, with at least one device
     * @throws DeviceUnavailableException if CUDA cannot run here: no NVIDIA driver
     *                                    ({@code libcuda.so.1}), bindings that do not load (no
     *                                    {@code libcudart.so.13}), {@code cuInit} failing, or no
     *                                    device; the message says which
     */
    public static synchronized CudaDriver load() throws DeviceUnavailableException {
        if (loaded == null && unusable == null) {
            try {
                loaded = initialise();
            } catch (DeviceUnavailableException e) {
                unusable = e.getMessage();
                unusableCause = e.getCause();
            }
        }
        if (loaded == null) {
            throw new DeviceUnavailableException(unusable, unusableCause);
        }
        return loaded;
    }

    private static CudaDriver initialise() throws DeviceUnavailableException {
        // dlopen first, for dlerror's own words: where there is no NVIDIA driver, loading the
        // bindings to fail on the same library costs ~85 ms in every JVM and first extracts
        // libjnicudart.so (2.3 MB) into ~/.javacpp/cache. The library stays open when found.
        String dlerror = DlLoader.open(DRIVER_LIBRARY).error();
        if (dlerror != null) {
            String what = dlerror.contains("cannot open shared object file") ? " not found (" : " does not load (";
            throw new DeviceUnavailableException("no NVIDIA driver: " + DRIVER_LIBRARY + what + dlerror + ")", null);
        }
        try {
            Loader.load(cudart.class);
        } catch (LinkageError | RuntimeException e) {
            throw new DeviceUnavailableException(bindingsFailure(e), e);
        }
        int rc = cuInit(0);
        if (rc != CuResult.SUCCESS) {
            throw new DeviceUnavailableException(CuResult.describe("cuInit", rc), null);
        }
        int[] count = new int[1];
        rc = cuDeviceGetCount(count);
        if (rc != CuResult.SUCCESS) {
            throw new DeviceUnavailableException(CuResult.describe("cuDeviceGetCount", rc), null);
        }
        if (count[0] < 1) {
            throw new DeviceUnavailableException("no CUDA device (cuDeviceGetCount found 0; check nvidia-smi and "
                    + "CUDA_VISIBLE_DEVICES)", null);
        }
        int[] devices = new int[count[0]];
        for (int i = 0; i < devices.length; i++) {
            int[] dev = new int[1];
            rc = cuDeviceGet(dev, i);
            if (rc != CuResult.SUCCESS) {
                throw new DeviceUnavailableException(CuResult.describe("cuDeviceGet(" + i + ")", rc), null);
            }
            devices[i] = dev[0];
        }
        return new CudaDriver(devices);
    }

    /**
     * JavaCPP's loader reports "no jnicudart in java.library.path" and keeps the dynamic
     * linker's reason (the library that is missing) in a cause.
     */
    private static String bindingsFailure(Throwable e) {
        Throwable deepest = e;
        while (deepest.getCause() != null && deepest.getCause() != deepest) {
            deepest = deepest.getCause();
        }
        String why = String.valueOf(deepest.getMessage());
        if (why.contains("libcudart.so")) {
            return "no CUDA runtime: libcudart.so.13 does not load (" + why + "); the bindings need it: install "
                    + "the CUDA 13 runtime (the toolkit's lib64) and put it on LD_LIBRARY_PATH";
        }
        return "the CUDA bindings (JavaCPP cuda presets) do not load: " + why;
    }

    /** @return how many CUDA devices this process sees ({@code CUDA_VISIBLE_DEVICES} applies) */
    public int deviceCount() {
        return devices.length;
    }

    /**
     * @param dev a device ordinal
     * @return its name, e.g. {@code NVIDIA H200}
     */
    public String deviceName(int dev) {
        byte[] name = new byte[256];
        CuResult.check(cuDeviceGetName(name, name.length, device(dev)), "cuDeviceGetName(" + dev + ")");
        return cString(name);
    }

    /**
     * @param dev a device ordinal
     * @return its PCI bus id in lower case as NCCL prints it, e.g. {@code 0000:3b:00.0}
     */
    public String pciBusId(int dev) {
        byte[] id = new byte[64];
        CuResult.check(cuDeviceGetPCIBusId(id, id.length, device(dev)), "cuDeviceGetPCIBusId(" + dev + ")");
        return cString(id).toLowerCase(Locale.ROOT);
    }

    /**
     * @param dev a device ordinal
     * @return major * 10 + minor, e.g. 90 for Hopper
     */
    public int computeCapability(int dev) {
        return 10 * attribute(dev, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR")
                + attribute(dev, cudart.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR");
    }

    /**
     * @param dev a device ordinal
     * @return its streaming multiprocessors
     */
    public int multiProcessorCount(int dev) {
        return attribute(dev, cudart.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
    }

    /**
     * @param dev a device ordinal
     * @return its memory in bytes
     */
    public long totalMemory(int dev) {
        try (SizeTPointer bytes = new SizeTPointer(1)) {
            CuResult.check(cuDeviceTotalMem(bytes, device(dev)), "cuDeviceTotalMem(" + dev + ")");
            return bytes.get();
        }
    }

    /**
     * The device's primary context, retained once per device and process and kept for the
     * process's life (as the CUDA runtime does), so every rank of this process on the device
     * shares it and their kernels can run concurrently.
     *
     * @param dev a device ordinal
     * @return its context
     */
    public synchronized CudaContext primaryContext(int dev) {
        int cu = device(dev);
        if (contexts[dev] == null) {
            CUctx_st ctx = new CUctx_st();
            CuResult.check(cuDevicePrimaryCtxRetain(ctx, cu), "cuDevicePrimaryCtxRetain(" + dev + ")");
            contexts[dev] = new CudaContext(dev, cu, ctx.address());
        }
        return contexts[dev];
    }

    private int attribute(int dev, int attribute, String name) {
        int[] value = new int[1];
        CuResult.check(cuDeviceGetAttribute(value, attribute, device(dev)),
                "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_" + name + ", " + dev + ")");
        return value[0];
    }

    /** @return the {@code CUdevice} of an ordinal, which is checked */
    private int device(int dev) {
        if (dev < 0 || dev >= devices.length) {
            throw NcclException.of(Result.INVALID_ARGUMENT,
                    "CUDA device " + dev + " does not exist: this process sees " + devices.length + " (0.."
                            + (devices.length - 1) + ")",
                    "pass an ordinal below deviceCount(); CUDA_VISIBLE_DEVICES decides which devices are seen");
        }
        return devices[dev];
    }

    private static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) {
            n++;
        }
        return new String(bytes, 0, n, StandardCharsets.US_ASCII);
    }
}
