package org.nccl4j.core.device;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Params;

/**
 * Chooses the device backend: {@code NCCL4J_DEVICE} names one, else the usable provider with the
 * lowest priority wins. Every provider's outcome is kept for errors and {@code nccl4j doctor}.
 */
public final class DeviceBackends {
    /**
     * One provider's outcome.
     *
     * @param name     the provider's name
     * @param priority its priority
     * @param status   {@code chosen}, {@code usable}, {@code not selected}, or why it is unusable
     */
    public record Candidate(String name, int priority, String status) {
    }

    /**
     * The result of the choice.
     *
     * @param backend    the chosen backend
     * @param candidates every provider and its outcome, in priority order
     */
    public record Selection(DeviceBackend backend, List<Candidate> candidates) {
    }

    private DeviceBackends() {
    }

    /** @return every registered provider, lowest priority first */
    public static List<DeviceBackendProvider> providers() {
        List<DeviceBackendProvider> list = new ArrayList<>();
        ServiceLoader.load(DeviceBackendProvider.class, DeviceBackends.class.getClassLoader()).forEach(list::add);
        if (list.stream().noneMatch(p -> p.name().equals(HostBackend.NAME))) {
            list.add(new HostBackendProvider());
        }
        list.sort(Comparator.comparingInt(DeviceBackendProvider::priority));
        return list;
    }

    /**
     * @param config parameters ({@code NCCL4J_DEVICE})
     * @return the chosen backend and every candidate's outcome
     * @throws NcclException with {@link Result#INVALID_USAGE} if none is usable
     */
    public static Selection select(Config config) {
        String wanted = config.string(Params.DEVICE);
        List<Candidate> candidates = new ArrayList<>();
        DeviceBackend chosen = null;
        for (DeviceBackendProvider p : providers()) {
            if (wanted != null && !wanted.equalsIgnoreCase(p.name())) {
                candidates.add(new Candidate(p.name(), p.priority(), "not selected (NCCL4J_DEVICE=" + wanted + ")"));
                continue;
            }
            if (chosen != null) {
                candidates.add(new Candidate(p.name(), p.priority(), "usable, lower in priority"));
                continue;
            }
            try {
                chosen = p.create();
                candidates.add(new Candidate(p.name(), p.priority(), "chosen"));
            } catch (DeviceUnavailableException | RuntimeException | LinkageError e) {
                candidates.add(new Candidate(p.name(), p.priority(), "unusable: " + e.getMessage()));
            }
        }
        if (chosen == null) {
            String list = candidates.stream().map(c -> c.name() + " (" + c.status() + ")")
                    .collect(Collectors.joining(", "));
            Log.warn("No usable device backend%s: %s", wanted == null ? "" : " named " + wanted, list);
            throw NcclException.of(Result.INVALID_USAGE,
                    "device backend " + (wanted == null ? "" : wanted + " ") + "not found; candidates: " + list,
                    "unset NCCL4J_DEVICE to use the host backend, or add the backend's module to the class path");
        }
        Log.info(Subsys.INIT, "Using device backend %s", chosen.name());
        return new Selection(chosen, List.copyOf(candidates));
    }
}
