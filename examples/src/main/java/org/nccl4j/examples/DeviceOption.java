package org.nccl4j.examples;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.nccl4j.CommConfig;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.DeviceBackend;
import org.nccl4j.core.device.DeviceBackendProvider;
import org.nccl4j.core.device.DeviceBackends;
import org.nccl4j.core.device.DeviceUnavailableException;
import org.nccl4j.core.device.HostBackend;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Source;
import picocli.CommandLine.Option;

/**
 * {@code --device} of perf and train: host memory and the host backend (the default), or the
 * communicator's GPU memory and the {@code cuda} (or {@code hip}) backend, with its ranks as threads of this JVM
 * or as local rank JVMs (one GPU per rank, or sharing the GPUs when they outnumber them).
 */
final class DeviceOption {
    /** The memory a command's collectives move. */
    enum Kind {
        /** {@code MemorySegment}s on the host backend. */
        HOST(null, null, null),
        /** {@code DeviceBuffer}s on the cuda backend. */
        CUDA(Params.CUDA_DEVICE, "nccl-gpu-cuda", "run on a machine with an NVIDIA GPU and its driver, or use --device host"),
        /** {@code DeviceBuffer}s on the hip backend (AMD GPUs; never run on one yet). */
        HIP(Params.HIP_DEVICE, "nccl-gpu-hip", "run on a machine with an AMD GPU and ROCm, or use --device host");

        /** The parameter that pins a rank's GPU. */
        final Param deviceParam;
        /** The backend's module. */
        final String module;
        /** What to do where it cannot run. */
        final String hint;

        Kind(Param deviceParam, String module, String hint) {
            this.deviceParam = deviceParam;
            this.module = module;
            this.hint = hint;
        }

        String backend() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Option(names = "--device", defaultValue = "host", paramLabel = "DEVICE",
            description = "host: host memory, host backend (default); cuda: GPU memory (DeviceBuffer), cuda backend; "
                    + "hip: AMD GPU memory, hip backend (never run on an AMD GPU yet)")
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
        if (share(kind, nranks, usable().deviceCount(), notes)) {
            b.param(Params.SHARED_DEVICE.envName(), "1");
        }
    }

    /** @return what each rank JVM must also get: {@code --device} when it is not the host */
    List<String> childOptions() {
        return onDevice() ? List.of("--device", kind.backend()) : List.of();
    }

    /**
     * The environment of {@code nranks} local rank JVMs: on a device, rank {@code r} takes GPU
     * {@code r % gpus} (NCCL's one GPU per local rank) unless {@code NCCL4J_CUDA_DEVICE} (or
     * {@code NCCL4J_HIP_DEVICE}) pins one,
     * and {@code NCCL4J_SHARED_DEVICE=1} when the ranks outnumber the GPUs (unless set elsewhere),
     * said on {@code notes}.
     *
     * @throws NcclException INVALID_USAGE at once, with the backend's reason, when it cannot run here
     */
    IntFunction<Map<String, String>> rankEnv(int nranks, PrintStream notes) {
        if (!onDevice()) {
            return r -> Map.of();
        }
        int gpus = usable().deviceCount();
        boolean pinned = Config.global().integer(kind.deviceParam) >= 0;
        boolean share = share(kind, nranks, gpus, notes);
        return r -> {
            Map<String, String> env = new HashMap<>();
            if (!pinned) {
                env.put(kind.deviceParam.envName(), Integer.toString(r % gpus));
            }
            if (share) {
                env.put(Params.SHARED_DEVICE.envName(), "1");
            }
            return env;
        };
    }

    /**
     * Whether {@code nranks} ranks must share GPUs and nothing set that already; if so, says it on
     * {@code notes}.
     */
    private static boolean share(Kind kind, int nranks, int gpus, PrintStream notes) {
        Config global = Config.global();
        long pin = global.integer(kind.deviceParam);
        boolean pinned = pin >= 0;
        if ((nranks > gpus || pinned && nranks > 1) && global.setting(Params.SHARED_DEVICE).source() == Source.DEFAULT) {
            String where = pinned ? "GPU " + pin : gpus + " GPU" + (gpus == 1 ? "" : "s");
            notes.printf(Locale.ROOT, "# %d ranks on %s: NCCL4J_SHARED_DEVICE=1, ranks share a GPU, each on its own "
                    + "streams%n", nranks, where);
            return true;
        }
        return false;
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
        throw unusable("the " + kind.backend() + " backend (" + kind.module + ") is not on the class path");
    }

    private NcclException unusable(String reason) {
        return NcclException.of(Result.INVALID_USAGE, "--device " + kind.backend() + ": " + reason, kind.hint);
    }
}
