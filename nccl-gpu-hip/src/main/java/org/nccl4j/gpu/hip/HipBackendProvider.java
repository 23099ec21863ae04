package org.nccl4j.gpu.hip;

import org.nccl4j.NcclException;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.gpu.hip.codeobject.CodeObjectResource;
import org.nccl4j.gpu.hip.runtime.HipRuntime;

/**
 * Provides the HIP backend, tried after the CUDA backend and before the host backend. It says
 * what it found, in the order a user fixes things: the HIP runtime library (and its version),
 * the AMD GPUs it sees, and the kernels in the jar. The collectives on AMD GPUs (device memory,
 * streams, events, IPC and launches of these kernels, as the CUDA backend's engine does) are not
 * built yet, so even where GPUs are found it is unusable, and says so: the engine then falls
 * back to the next backend only where {@code NCCL4J_DEVICE} does not name {@code hip}.
 */
public final class HipBackendProvider implements DeviceBackendProvider {
    /** The backend's name, as {@code NCCL4J_DEVICE} names it. */
    public static final String NAME = "hip";
    /** The HIP backend's priority: after CUDA's 100, before the host backend's 1000. */
    public static final int PRIORITY = 200;
    /** Why a machine with AMD GPUs still cannot run this backend. */
    static final String NO_ENGINE = "nccl4j's collectives on AMD GPUs (device memory, streams, kernel launches) are not"
            + " built yet; the cuda or host backend runs them";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public DeviceBackend create() throws DeviceUnavailableException {
        String kernels = CodeObjectResource.present() ? "" : "; and " + CodeObjectResource.MISSING;
        HipRuntime rt;
        try {
            rt = HipRuntime.load();
        } catch (DeviceUnavailableException e) {
            throw new DeviceUnavailableException(e.getMessage() + kernels, e);
        }
        String found = "HIP runtime " + rt.library() + " " + HipRuntime.versionText(rt.runtimeVersion());
        int gpus;
        try {
            gpus = rt.deviceCount();
        } catch (NcclException e) {
            throw new DeviceUnavailableException(found + ", but " + e.detail() + kernels, e);
        }
        if (gpus == 0) {
            throw new DeviceUnavailableException(found + ", but no AMD GPU (hipGetDeviceCount: "
                    + rt.describe(HipRuntime.ERROR_NO_DEVICE) + ")" + kernels, null);
        }
        throw new DeviceUnavailableException(found + ", " + gpus + " AMD GPU" + (gpus == 1 ? "" : "s") + ", but "
                + NO_ENGINE + kernels, null);
    }
}
