package org.nccl4j.core.device;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.nccl4j.core.param.Config;

/**
 * A provider for selection tests: its backend reports a fixed device count, or {@code create()}
 * fails as a GPU backend without its driver does. Counts how often it was created.
 */
public final class TestBackendProvider implements DeviceBackendProvider {
    private final AtomicInteger created = new AtomicInteger();
    private final String name;
    private final int priority;
    private final int devices;
    private final String failure;
    private final String onlyWhenNamed;

    private TestBackendProvider(String name, int priority, int devices, String failure, String onlyWhenNamed) {
        this.name = name;
        this.priority = priority;
        this.devices = devices;
        this.failure = failure;
        this.onlyWhenNamed = onlyWhenNamed;
    }

    /**
     * @param name     backend name
     * @param priority selection order
     * @param devices  what its backend's {@code deviceCount()} returns
     * @param why      why it is used only when {@code NCCL4J_DEVICE} names it
     * @return the provider
     */
    public static TestBackendProvider onlyWhenNamed(String name, int priority, int devices, String why) {
        return new TestBackendProvider(name, priority, devices, null, why);
    }

    @Override
    public Optional<String> onlyWhenNamed() {
        return Optional.ofNullable(onlyWhenNamed);
    }

    /**
     * @param name     backend name
     * @param priority selection order
     * @param devices  what its backend's {@code deviceCount()} returns
     * @return the provider
     */
    public static TestBackendProvider with(String name, int priority, int devices) {
        return new TestBackendProvider(name, priority, devices, null, null);
    }

    /**
     * @param name     backend name
     * @param priority selection order
     * @param why      the message of the {@link DeviceUnavailableException} {@code create()} throws
     * @return the provider
     */
    public static TestBackendProvider failing(String name, int priority, String why) {
        return new TestBackendProvider(name, priority, 0, why, null);
    }

    /** @return how often {@link #create()} ran */
    public int created() {
        return created.get();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int priority() {
        return priority;
    }

    @Override
    public DeviceBackend create() throws DeviceUnavailableException {
        created.incrementAndGet();
        if (failure != null) {
            throw new DeviceUnavailableException(failure, null);
        }
        return new DeviceBackend() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public int deviceCount() {
                return devices;
            }

            @Override
            public LocalDevice open(Config config) {
                throw new UnsupportedOperationException("selection tests open no device");
            }
        };
    }
}
