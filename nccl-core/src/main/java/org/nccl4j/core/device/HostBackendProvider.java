package org.nccl4j.core.device;

/** Provides the {@link HostBackend}: always usable, tried last. */
public final class HostBackendProvider implements DeviceBackendProvider {
    /** The host backend's priority: after every GPU backend. */
    public static final int PRIORITY = 1000;

    @Override
    public String name() {
        return HostBackend.NAME;
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public DeviceBackend create() {
        return new HostBackend();
    }
}
