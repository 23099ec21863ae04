package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.testkit.NetTestKit;

/** The test kit through the adapter, on the fixture plugin's ncclNetPlugin_v10 (it also exports v8 and v4). */
class FixtureV10NetTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new ExtNetProvider(Fixtures.library("fixture")).create();
    }

    @Test
    void usesTheNewestVersion() {
        assertEquals(10, ((NativeNet) net).version());
        assertEquals("Fixture", net.name());
    }
}
