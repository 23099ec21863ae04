package org.nccl4j.net.ext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import org.junit.jupiter.api.Test;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.testkit.CommPair;
import org.nccl4j.net.spi.testkit.NetTestKit;

/**
 * The test kit on the fixture plugin built to take CUDA device memory too ({@code -DFX_CUDA}: the
 * instrument for nccl4j's GPU Direct RDMA path, staging through host memory with the CUDA driver).
 * Host memory passes every test as any plugin's must; it reports {@code NCCL_PTR_CUDA}; without a
 * CUDA driver a device-memory registration is refused at {@code regMr}, not later.
 */
class FixtureCudaNetTest extends NetTestKit {
    @Override
    protected Net createNet() {
        return new ExtNetProvider(Fixtures.library("fixture-cuda")).create();
    }

    @Test
    void reportsHostAndDeviceMemory() throws NetException {
        assertEquals(Net.PTR_HOST | Net.PTR_CUDA, net.getProperties(device()).ptrSupport());
    }

    @Test
    void deviceMemoryWithoutACudaDriverIsRefusedAtRegistration() throws NetException {
        assumeFalse(cudaDriverPresent(), "a CUDA driver is here: the registration would be accepted");
        CommPair pair = openPair();
        MemorySegment buf = allocate(4096);
        assertThrows(NetException.class, () -> net.regMr(pair.send(), buf, Net.PTR_CUDA));
    }

    private static boolean cudaDriverPresent() {
        try (Arena a = Arena.ofConfined()) {
            SymbolLookup.libraryLookup("libcuda.so.1", a);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
