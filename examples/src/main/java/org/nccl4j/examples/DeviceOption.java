package org.nccl4j.examples;

import java.io.PrintStream;
import java.util.Locale;
import org.nccl4j.CommConfig;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Source;
import picocli.CommandLine.Option;

/**
 * {@code --device} of perf and train: host memory and the host backend (the default), or the
 * communicator's GPU memory and the {@code cuda} backend. The cuda backend connects only ranks of
 * one process (no cross-process GPU transport yet), so its ranks are threads of this JVM.
 */
final class DeviceOption {
    /** The memory a command's collectives move. */
    enum Kind {
        /** {@code MemorySegment}s on the host backend. */
        HOST,
        /** {@code DeviceBuffer}s on the cuda backend. */
        CUDA;

        String backend() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Option(names = "--device", defaultValue = "host", paramLabel = "DEVICE",
            description = "host: host memory, host backend (default); cuda: GPU memory (DeviceBuffer), cuda backend, "
                    + "ranks as threads of this JVM")
    Kind kind = Kind.HOST;

    /** @return whether the collectives run on device memory */
    boolean onDevice() {
        return kind != Kind.HOST;
    }

    /**
     * Adds what the ranks' communicators need: {@code NCCL4J_DEVICE} (host unless set elsewhere, as
     * perf and train always did; the named backend with {@code --device}) and, when the ranks
     * outnumber the GPUs or are pinned to one, {@code NCCL4J_SHARED_DEVICE=1} unless set elsewhere,
     * saying so on {@code notes} as a {@code #} line.
     *
     * @param b      the ranks' config so far
     * @param nranks ranks in this process
     * @param notes  where to say what was set
     * @throws NcclException INVALID_USAGE at once, with the backend's reason, when it cannot run here
     */
    void configure(CommConfig.Builder b, int nranks, PrintStream notes) {
        Config global = Config.global();
        if (!onDevice()) {
            if (global.setting(Params.DEVICE).source() == Source.DEFAULT) {
                b.param(Params.DEVICE.envName(), HostBackend.NAME);
            }
            return;
        }
        b.param(Params.DEVICE.envName(), kind.backend());
        int gpus = usable().deviceCount();
        boolean pinned = global.integer(Params.CUDA_DEVICE) >= 0;
        if ((nranks > gpus || pinned && nranks > 1) && global.setting(Params.SHARED_DEVICE).source() == Source.DEFAULT) {
            b.param(Params.SHARED_DEVICE.envName(), "1");
            notes.printf(Locale.ROOT, "# %d ranks on %s: NCCL4J_SHARED_DEVICE=1, ranks share a GPU, each on its own "
                    + "streams%n", nranks, pinned ? "GPU " + global.integer(Params.CUDA_DEVICE)
                    : gpus + " GPU" + (gpus == 1 ? "" : "s"));
        }
    }

    /** The backend {@code --device} names, created to learn that it runs here and how many devices it has. */
    private DeviceBackend usable() {
        for (DeviceBackendProvider p : DeviceBackends.providers()) {
            if (p.name().equalsIgnoreCase(kind.backend())) {
                try {
                    DeviceBackend backend = p.create();
                    if (backend.deviceCount() < 1) {
                        throw unusable("no device");
                    }
                    return backend;
                } catch (DeviceUnavailableException e) {
                    throw unusable(e.getMessage());
                }
            }
        }
        throw unusable("the " + kind.backend() + " backend (nccl-gpu-cuda) is not on the class path");
    }

    private NcclException unusable(String reason) {
        return NcclException.of(Result.INVALID_USAGE, "--device " + kind.backend() + ": " + reason,
                "run on a machine with an NVIDIA GPU and its driver, or use --device host");
    }
}
