package org.nccl4j.net.socket;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector for this module's tests ({@code -Dio.netty.customResourceLeakDetector},
 * set with PARANOID in the pom): reports every leak whatever the logging setup (Netty reports only
 * when its logger is at ERROR, which a missing SLF4J binding turns off) and keeps it for
 * {@link NettyLeakCheck}, which fails the test class that leaked.
 *
 * @param <T> the tracked resource
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    /**
     * Netty's constructor for a custom detector.
     *
     * @param resourceType     what is tracked
     * @param samplingInterval 1 in how many is tracked (PARANOID tracks all)
     */
    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** @return the leaks reported since the last call, which forgets them */
    static List<String> drain() {
        List<String> l = List.copyOf(LEAKS);
        LEAKS.removeAll(l);
        return l;
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add(resourceType + " released by nobody; its last accesses:" + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add(resourceType + " released by nobody (not traced)");
    }
}
