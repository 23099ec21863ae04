package org.nccl4j.gpu.cuda.driver;

import static org.bytedeco.cuda.global.nvml.NVML_FEATURE_ENABLED;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_CAP_P2P_SUPPORTED;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_DEVICE_TYPE_GPU;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_DEVICE_TYPE_IBMNPU;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_DEVICE_TYPE_SWITCH;
import static org.bytedeco.cuda.global.nvml.NVML_NVLINK_MAX_LINKS;
import static org.bytedeco.cuda.global.nvml.NVML_SUCCESS;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.bytedeco.cuda.global.nvml;
import org.bytedeco.cuda.nvml.nvmlDevice_st;
import org.bytedeco.cuda.nvml.nvmlPciInfo_t;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.PointerPointer;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.device.GpuDescription;
import org.nccl4j.net.spi.nativelib.DlLoader;

/**
 * NVML, the driver's management library ({@code libnvidia-ml.so.1}), as NCCL's
 * {@code nvmlwrap.cc} uses it for topology: a GPU's index and compute capability by bus id, and
 * its NVLinks ({@code ncclTopoGetXmlFromGpu}'s loop: a link counts when it is P2P capable and
 * active, and goes to the device at its remote PCI address). Bound through JavaCPP's CUDA
 * presets ({@code org.bytedeco.cuda.global.nvml}), against the machine's own library.
 *
 * <p>Loaded once per process; where it does not load or {@code nvmlInit} fails, {@link #load()}
 * is empty and GPUs are described without NVLinks, as NCCL does without NVML.
 */
public final class Nvml {
    /** The library, as libjninvml.so names it (DT_NEEDED). */
    static final String LIBRARY = "libnvidia-ml.so.1";
    private static Nvml loaded;
    private static String unusable;

    private Nvml() {
    }

    /** @return NVML, initialised, or empty (logged once at INFO: why) */
    public static synchronized Optional<Nvml> load() {
        if (loaded == null && unusable == null) {
            unusable = initialise();
            if (unusable == null) {
                loaded = new Nvml();
            } else {
                Log.info(Subsys.INIT, "NVML unusable (%s): GPUs are detected without their NVLinks", unusable);
            }
        }
        return Optional.ofNullable(loaded);
    }

    /** @return why NVML is unusable, or {@code null} when it loaded (or was not tried yet) */
    public static synchronized String unusableReason() {
        return unusable;
    }

    private static String initialise() {
        String dlerror = DlLoader.open(LIBRARY).error();
        if (dlerror != null) {
            return LIBRARY + " does not load: " + dlerror;
        }
        try {
            Loader.load(nvml.class);
        } catch (LinkageError | RuntimeException e) {
            return "the NVML bindings do not load: " + e.getMessage();
        }
        int rc = nvml.nvmlInit_v2();
        return rc == NVML_SUCCESS ? null : "nvmlInit failed: " + error(rc);
    }

    private static String error(int rc) {
        return nvml.nvmlErrorString(rc).getString() + " (" + rc + ")";
    }

    /** {@code nvmlDeviceGetHandleByPciBusId}, or {@code null}. */
    private static nvmlDevice_st handle(String busId) {
        try (PointerPointer<nvmlDevice_st> out = new PointerPointer<>(1)) {
            int rc = nvml.nvmlDeviceGetHandleByPciBusId_v2(busId, out);
            if (rc != NVML_SUCCESS || out.get(0) == null || out.get(0).isNull()) {
                Log.info(Subsys.GRAPH, "nvmlDeviceGetHandleByPciBusId(%s) failed: %s", busId, rc == NVML_SUCCESS ? "no device"
                        : error(rc));
                return null;
            }
            return new nvmlDevice_st(out.get(0));
        }
    }

    /** @return the bus ids of every GPU NVML sees (all of this host's, whatever {@code CUDA_VISIBLE_DEVICES} says) */
    public List<String> busIds() {
        int[] count = new int[1];
        if (nvml.nvmlDeviceGetCount_v2(count) != NVML_SUCCESS) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try (PointerPointer<nvmlDevice_st> dev = new PointerPointer<>(1); nvmlPciInfo_t pci = new nvmlPciInfo_t()) {
            for (int i = 0; i < count[0]; i++) {
                if (nvml.nvmlDeviceGetHandleByIndex_v2(i, dev) == NVML_SUCCESS
                        && nvml.nvmlDeviceGetPciInfo_v3(new nvmlDevice_st(dev.get(0)), pci) == NVML_SUCCESS) {
                    out.add(normalBusId(pci.busId().getString()));
                }
            }
        }
        return out;
    }

    /**
     * @param busId a GPU's bus id
     * @return its NVML index (the ordinal ignoring {@code CUDA_VISIBLE_DEVICES}), or empty
     */
    public OptionalInt index(String busId) {
        nvmlDevice_st dev = handle(busId);
        int[] index = new int[1];
        return dev != null && nvml.nvmlDeviceGetIndex(dev, index) == NVML_SUCCESS ? OptionalInt.of(index[0])
                : OptionalInt.empty();
    }

    /**
     * @param busId a GPU's bus id
     * @return major * 10 + minor, or empty
     */
    public OptionalInt computeCapability(String busId) {
        nvmlDevice_st dev = handle(busId);
        int[] major = new int[1];
        int[] minor = new int[1];
        return dev != null && nvml.nvmlDeviceGetCudaComputeCapability(dev, major, minor) == NVML_SUCCESS
                ? OptionalInt.of(major[0] * 10 + minor[0]) : OptionalInt.empty();
    }

    /**
     * The GPU's usable NVLinks, one entry per remote device with its link count.
     *
     * @param busId a GPU's bus id
     * @param sm    its compute capability (how many links to ask for)
     * @return the links, in the order of their first link; empty without a handle
     */
    public List<GpuDescription.NvLink> nvLinks(String busId, int sm) {
        nvmlDevice_st dev = handle(busId);
        if (dev == null) {
            return List.of();
        }
        Map<String, int[]> counts = new LinkedHashMap<>();
        Map<String, String> classes = new LinkedHashMap<>();
        int[] value = new int[1];
        try (nvmlPciInfo_t remote = new nvmlPciInfo_t()) {
            for (int l = 0; l < maxLinks(sm); l++) {
                if (nvml.nvmlDeviceGetNvLinkCapability(dev, l, NVML_NVLINK_CAP_P2P_SUPPORTED, value) != NVML_SUCCESS
                        || value[0] == 0) {
                    continue;
                }
                if (nvml.nvmlDeviceGetNvLinkState(dev, l, value) != NVML_SUCCESS || value[0] != NVML_FEATURE_ENABLED) {
                    continue;
                }
                if (nvml.nvmlDeviceGetNvLinkRemotePciInfo_v2(dev, l, remote) != NVML_SUCCESS) {
                    continue;
                }
                String target = normalBusId(remote.busId().getString());
                counts.computeIfAbsent(target, t -> new int[1])[0]++;
                if (nvml.nvmlDeviceGetNvLinkRemoteDeviceType(dev, l, value) == NVML_SUCCESS) {
                    classes.putIfAbsent(target, remoteClass(value[0]));
                }
            }
        }
        List<GpuDescription.NvLink> out = new ArrayList<>();
        counts.forEach((target, n) -> out.add(new GpuDescription.NvLink(target, classes.get(target), n[0])));
        return out;
    }

    /**
     * NCCL 2.10's link counts per architecture (4 on Pascal, 6 on Volta, 12 on Ampere), and
     * NVML's maximum from Hopper on (18), which NCCL 2.10 predates.
     */
    static int maxLinks(int sm) {
        return sm < 60 ? 0 : sm < 70 ? 4 : sm < 80 ? 6 : sm < 90 ? 12 : NVML_NVLINK_MAX_LINKS;
    }

    /** The PCI class NCCL's XML gives the remote's type, or {@code null} when unknown. */
    static String remoteClass(int type) {
        if (type == NVML_NVLINK_DEVICE_TYPE_GPU) {
            return GpuDescription.CLASS_GPU;
        }
        if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
            return GpuDescription.CLASS_NVSWITCH;
        }
        return type == NVML_NVLINK_DEVICE_TYPE_IBMNPU ? GpuDescription.CLASS_CPU : null;
    }

    /**
     * NVML's bus id ({@code "00000000:3B:00.0"}) as sysfs names the device: lower case (as NCCL
     * makes it), and the 8-digit domain cut to sysfs's 4 digits when its top digits are zero.
     */
    static String normalBusId(String nvmlBusId) {
        String id = nvmlBusId.trim().toLowerCase(Locale.ROOT);
        int colon = id.indexOf(':');
        if (colon > 4 && id.substring(0, colon - 4).chars().allMatch(c -> c == '0')) {
            id = id.substring(colon - 4);
        }
        return id;
    }
}
