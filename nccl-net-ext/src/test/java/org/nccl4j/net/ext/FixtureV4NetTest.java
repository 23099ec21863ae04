package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.testkit.NetTestKit;

/** The test kit through the adapter, on a plugin exporting only ncclNetPlugin_v4 (64-byte handles, blocking connect). */
class FixtureV4NetTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new ExtNetProvider(Fixtures.library("fixture-v4")).create();
    }

    @Override
    protected long maxTransferSize() {
        return 64 * MIB;
    }

    @Test
    void usesV4() {
        assertEquals(4, ((NativeNet) net).version());
    }
}
