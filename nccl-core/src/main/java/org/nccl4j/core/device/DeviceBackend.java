package org.nccl4j.core.device;

import org.nccl4j.core.param.Config;

/**
 * A device backend: what a rank's "device" is and how it is identified. The GPU backends will
 * also run the collective kernels; the host backend runs them as Java loops.
 */
public interface DeviceBackend {
    /** @return the backend's name */
    String name();

    /** @return how many devices this host has for this backend */
    int deviceCount();

    /**
     * Picks the device for a rank being initialised in this process.
     *
     * @param config the communicator's parameters
     * @return the device's identity
     */
    LocalDevice open(Config config);
}
