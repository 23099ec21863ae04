package org.nccl4j.core.device;

/**
 * Finds a device backend (host, CUDA, HIP). Registered for {@link java.util.ServiceLoader};
 * chosen by {@code NCCL4J_DEVICE} or, when unset, the usable one with the lowest priority.
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
}
