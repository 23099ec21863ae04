package org.nccl4j.core.device;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.param.Param;
import org.nccl4j.core.param.Params;

/**
 * Chooses the device backend: {@code NCCL4J_DEVICE} names one, else the usable provider with the
 * lowest priority wins, passing by those used only when named (they are still created, to say
 * what they found). A provider counts as usable only once it was created and reported at
 * least one device; those after the chosen one are not tried, as initNet does with nets. Every
 * provider's outcome is kept for errors and {@code nccl4j doctor}.
 */
public final class DeviceBackends {
    /**
     * One provider's outcome.
     *
     * @param name     the provider's name
     * @param priority its priority
     * @param status   {@code chosen, N devices}, {@code not tried: ...}, {@code not selected ...},
     *                 or {@code unusable: why}
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
     * @return the chosen backend among {@link #providers()} and every candidate's outcome
     * @throws NcclException with {@link Result#INVALID_USAGE} if none is usable or
     *                       {@code NCCL4J_DEVICE} names no registered backend
     */
    public static Selection select(Config config) {
        return select(config, providers());
    }

    /**
     * @param config    parameters ({@code NCCL4J_DEVICE})
     * @param providers candidates, lowest priority first
     * @return the chosen backend and every candidate's outcome
     * @throws NcclException with {@link Result#INVALID_USAGE} if none is usable or
     *                       {@code NCCL4J_DEVICE} names no candidate
     */
    public static Selection select(Config config, List<DeviceBackendProvider> providers) {
        String wanted = config.string(Params.DEVICE);
        String known = providers.stream().map(DeviceBackendProvider::name).collect(Collectors.joining(", "));
        if (wanted != null && providers.stream().noneMatch(p -> wanted.equalsIgnoreCase(p.name()))) {
            throw NcclException.of(Result.INVALID_USAGE,
                    "NCCL4J_DEVICE=" + wanted + " names no device backend; known backends: " + known,
                    "set NCCL4J_DEVICE to one of them, or unset it to take the first usable");
        }
        List<Candidate> candidates = new ArrayList<>();
        DeviceBackend chosen = null;
        for (DeviceBackendProvider p : providers) {
            if (wanted != null && !wanted.equalsIgnoreCase(p.name())) {
                candidates.add(new Candidate(p.name(), p.priority(), "not selected (NCCL4J_DEVICE=" + wanted + ")"));
            } else if (chosen != null) {
                candidates.add(new Candidate(p.name(), p.priority(), "not tried: " + chosen.name() + " came first"));
            } else {
                String status;
                try {
                    DeviceBackend b = p.create();
                    int n = b.deviceCount();
                    String devices = n + " device" + (n == 1 ? "" : "s");
                    Optional<String> namedOnly = wanted == null ? p.onlyWhenNamed() : Optional.empty();
                    if (n >= 1 && namedOnly.isPresent()) {
                        status = "passed by: " + devices + ", but used only when NCCL4J_DEVICE=" + p.name()
                                + " names it (" + namedOnly.get() + ")";
                    } else if (n >= 1) {
                        chosen = b;
                        status = "chosen, " + devices;
                    } else {
                        status = "unusable: no device";
                    }
                } catch (DeviceUnavailableException | RuntimeException | LinkageError e) {
                    status = "unusable: " + e.getMessage();
                }
                candidates.add(new Candidate(p.name(), p.priority(), status));
            }
        }
        if (chosen == null) {
            String list = candidates.stream().map(c -> c.name() + " (" + c.status() + ")")
                    .collect(Collectors.joining(", "));
            Log.warn("No usable device backend%s: %s", wanted == null ? "" : " named " + wanted, list);
            throw NcclException.of(Result.INVALID_USAGE,
                    "no usable device backend" + (wanted == null ? "" : " named " + wanted) + "; candidates: " + list,
                    "unset NCCL4J_DEVICE to use the host backend, or add the backend's module to the class path");
        }
        Log.info(Subsys.INIT, "Using device backend %s", chosen.name());
        if (chosen instanceof HostBackend) {
            HostBackend.unappliedKnobs(config).forEach(s -> Log.warn("%s=%s is %s%s", s.param().envName(), s.value(),
                    Param.NOT_ON_HOST, s.param().hostNote()));
        }
        return new Selection(chosen, List.copyOf(candidates));
    }
}
