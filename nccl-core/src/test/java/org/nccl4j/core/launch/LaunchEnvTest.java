package org.nccl4j.core.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;

class LaunchEnvTest {
    @Test
    void everyLauncher() {
        assertEquals(new LaunchEnv(1, 4, "nccl4j (NCCL4J_RANK=1, NCCL4J_NRANKS=4)", "abc", null),
                LaunchEnv.detect(Map.of("NCCL4J_RANK", "1", "NCCL4J_NRANKS", "4", "NCCL4J_UNIQUE_ID", "abc"), "h:1"));
        LaunchEnv t = LaunchEnv.detect(Map.of("RANK", "2", "WORLD_SIZE", "3", "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "29500"), null);
        assertEquals(2, t.rank());
        assertEquals(3, t.nranks());
        assertEquals("10.0.0.1:29500", t.root());
        assertTrue(t.launcher().startsWith("torchrun"));
        LaunchEnv m = LaunchEnv.detect(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2"), "127.0.0.1:5000");
        assertEquals("127.0.0.1:5000", m.root());
        assertNull(m.uniqueId());
        assertTrue(m.launcher().startsWith("Open MPI"));
        LaunchEnv s = LaunchEnv.detect(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8", "MASTER_ADDR", "::1", "MASTER_PORT", "7"), null);
        assertEquals("[::1]:7", s.root());
        assertEquals(5, s.rank());
        LaunchEnv p = LaunchEnv.detect(Map.of("PMI_RANK", "3", "PMI_SIZE", "4"), "h:9");
        assertEquals(3, p.rank());
        assertTrue(p.launcher().startsWith("PMI"));
    }

    @Test
    void commIdWinsOverMasterAddr() {
        LaunchEnv e = LaunchEnv.detect(Map.of("RANK", "0", "WORLD_SIZE", "1", "MASTER_ADDR", "a", "MASTER_PORT", "1"), "b:2");
        assertEquals("b:2", e.root());
    }

    @Test
    void missingPieces() {
        NcclUsageException none = assertThrows(NcclUsageException.class, () -> LaunchEnv.detect(Map.of(), null));
        assertEquals(Result.INVALID_USAGE, none.result());
        NcclUsageException noRoot = assertThrows(NcclUsageException.class,
                () -> LaunchEnv.detect(Map.of("RANK", "0", "WORLD_SIZE", "2"), null));
        assertTrue(noRoot.getMessage().contains("no bootstrap root"), noRoot.getMessage());
        NcclUsageException bad = assertThrows(NcclUsageException.class,
                () -> LaunchEnv.detect(Map.of("RANK", "x", "WORLD_SIZE", "2"), "h:1"));
        assertEquals(Result.INVALID_ARGUMENT, bad.result());
    }
}
