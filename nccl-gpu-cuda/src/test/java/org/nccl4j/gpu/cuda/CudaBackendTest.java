package org.nccl4j.gpu.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.cuda.global.cudart;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.device.gpu.GpuRuntime;

/** Device choice, which needs no GPU. */
class CudaBackendTest {
    @Test
    void aPinnedDeviceIsTakenAsIs() {
        assertEquals(-1, CudaBackend.pinned(-1, 4));
        assertEquals(2, CudaBackend.pinned(2, 4));
        assertEquals(0, CudaBackend.pinned(0, 1));
    }

    @Test
    void aDeviceThatIsNotVisibleIsRefusedNamingIt() {
        NcclException e = assertThrows(NcclException.class, () -> CudaBackend.pinned(4, 4));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertEquals("NCCL4J_CUDA_DEVICE=4 is not a CUDA device of this process: it sees 4 (0..3)", e.detail());
        NcclException negative = assertThrows(NcclException.class, () -> CudaBackend.pinned(-2, 1));
        assertTrue(negative.detail().startsWith("NCCL4J_CUDA_DEVICE=-2 is not a CUDA device"), negative.detail());
    }

    @Test
    void anIpcHandleIsAsLongAsCudasOwn() {
        // The engine sizes its connection descriptors by GpuRuntime's constant; CUDA's header says 64.
        assertEquals(cudart.CU_IPC_HANDLE_SIZE, GpuRuntime.IPC_HANDLE_BYTES);
    }
}
