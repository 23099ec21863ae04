package org.nccl4j.core.device;

import java.util.Optional;

/**
 * Finds a device backend (host, CUDA, HIP). Registered for {@link java.util.ServiceLoader};
 * chosen by {@code NCCL4J_DEVICE} or, when unset, the usable one with the lowest priority
 * (among those not {@linkplain #onlyWhenNamed() used only when named}).
 */
public interface DeviceBackendProvider {
    /** @return the backend's name, e.g. {@code host}, {@code cuda} */
    String name();

    /** @return selection order, lower first; GPU backends come before {@code host} (1000) */
    int priority();

    /**
     * Creates the backend, loading its native libraries. Cheap when the backend is unusable.
     *
     * @return the backend
     * @throws DeviceUnavailableException if it cannot run here, saying why
     */
    DeviceBackend create() throws DeviceUnavailableException;

    /**
     * A backend that has not yet run where it would be chosen (a port not yet tested on its
     * hardware) is left out of the automatic choice: {@code NCCL4J_DEVICE} must name it.
     *
     * @return why it is used only when named, or empty (the default) when the choice may take it
     */
    default Optional<String> onlyWhenNamed() {
        return Optional.empty();
    }
}
