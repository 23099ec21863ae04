package org.nccl4j.gpu.hip;

import java.util.Optional;
import org.nccl4j.NcclException;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.gpu.hip.codeobject.CodeObjectResource;
import org.nccl4j.gpu.hip.runtime.HipRuntime;

/**
 * Provides the HIP backend, tried after the CUDA backend and before the host backend. It says
 * what it found, in the order a user fixes things: the HIP runtime library (and its version),
 * the AMD GPUs it sees, and the kernels in the jar. Its engine has not run on an AMD GPU yet, so
 * it is used only where {@code NCCL4J_DEVICE=hip} names it; the automatic choice passes it by.
 */
public final class HipBackendProvider implements DeviceBackendProvider {
    /** The backend's name, as {@code NCCL4J_DEVICE} names it. */
    public static final String NAME = "hip";
    /** The HIP backend's priority: after CUDA's 100, before the host backend's 1000. */
    public static final int PRIORITY = 200;
    /** Why the automatic choice passes it by. */
    static final String UNTESTED = "its engine has not run on an AMD GPU yet";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Optional<String> onlyWhenNamed() {
        return Optional.of(UNTESTED);
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
        if (!kernels.isEmpty()) {
            throw new DeviceUnavailableException(found + ", " + gpus + " AMD GPU" + (gpus == 1 ? "" : "s") + ", but "
                    + "this jar was " + CodeObjectResource.MISSING, null);
        }
        return new HipBackend(rt);
    }
}
