package org.nccl4j.core.device;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;
import org.nccl4j.core.param.Setting;
import org.nccl4j.core.param.Source;

/**
 * The default backend where no GPU is usable: a rank's device is a share of this host's CPUs.
 *
 * <p>Identity: each rank opened in this process gets a bus id built from the pid and a
 * per-process ordinal, so any number of ranks can share a host (threads of one JVM or several
 * JVMs) and none collide. {@code NCCL4J_HOST_DEVICE=<n>} pins the device number instead; two
 * ranks of one host pinned to the same number are refused as NCCL refuses a duplicate GPU. The
 * index shown in logs is the rank's position among its host's ranks, assigned after AllGather1.
 */
public final class HostBackend implements DeviceBackend {
    /** The backend's name. */
    public static final String NAME = "host";
    private static final AtomicInteger ORDINAL = new AtomicInteger();

    /**
     * How many channels a host rank gets unless {@code NCCL_MAX_NCHANNELS} says otherwise: every
     * channel of a host rank is a thread that spins while it waits, so no more than this host's
     * cores per local rank.
     *
     * @param localRanks ranks on this host
     * @return at least 1
     */
    public static int maxChannels(int localRanks) {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / localRanks);
    }

    /**
     * @param config parameters
     * @return the knobs set (not left at their defaults) that this backend does not apply
     *         ({@link org.nccl4j.core.param.Param#hostNote()} says why)
     */
    public static List<Setting> unappliedKnobs(Config config) {
        return config.all().stream()
                .filter(s -> s.param().hostNote() != null && s.source() != Source.DEFAULT)
                .toList();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int deviceCount() {
        return Runtime.getRuntime().availableProcessors();
    }

    @Override
    public LocalDevice open(Config config) {
        long pinned = config.integer(Params.HOST_DEVICE);
        if (pinned >= 0) {
            return new LocalDevice(NAME, (int) pinned, pinned, String.format("host:%d", pinned));
        }
        long pid = ProcessHandle.current().pid();
        int ordinal = ORDINAL.getAndIncrement();
        // Bit 62 keeps automatic ids apart from pinned ones.
        long busId = (1L << 62) | (pid << 20) | (ordinal & 0xfffff);
        return new LocalDevice(NAME, -1, busId, String.format("host:%d:%d", pid, ordinal));
    }
}
