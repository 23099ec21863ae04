package org.nccl4j.net.ib;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetLogger;

/** A {@link NetContext} with fixed parameters that records every log line. */
final class TestContext implements NetContext {
    /** One recorded line. */
    record Line(int level, long subsystem, String message) {
    }

    private final Map<String, String> params;
    private final List<Line> lines = Collections.synchronizedList(new ArrayList<>());

    TestContext(Map<String, String> params) {
        this.params = params;
    }

    @Override
    public NetLogger logger() {
        return (level, subsystem, message) -> lines.add(new Line(level, subsystem, message));
    }

    @Override
    public String param(String ncclName) {
        return params.get(ncclName);
    }

    List<Line> lines() {
        return List.copyOf(lines);
    }

    boolean logged(int level, String message) {
        return lines().stream().anyMatch(l -> l.level() == level && l.message().equals(message));
    }
}
