package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.testkit.NetTestKit;

/** The test kit through the adapter, on a plugin exporting only ncclNetPlugin_v8. */
class FixtureV8NetTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new ExtNetProvider(Fixtures.library("fixture-v8")).create();
    }

    @Override
    protected long maxTransferSize() {
        return 64 * MIB;
    }

    @Test
    void usesV8() {
        assertEquals(8, ((NativeNet) net).version());
    }
}
