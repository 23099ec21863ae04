package org.nccl4j.core.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.NcclUsageException;
import org.nccl4j.Result;
import org.nccl4j.core.param.Config;
import org.nccl4j.net.spi.NetProvider;

class InitNetTest {
    private static Config config(Map<String, String> env) {
        return Config.of(new Properties(), env, java.nio.file.Path.of("/nonexistent"));
    }

    @Test
    void providersComeFromServiceLoaderInPriorityOrder() {
        List<String> names = InitNet.providers().stream().map(NetProvider::name).toList();
        assertEquals(List.of("TestFailing", "TestNoDevice", "TestUsable"), names);
    }

    @Test
    void firstUsableWinsAndEveryCandidateIsExplained() {
        NetSelection s = InitNet.choose(config(Map.of()), null, InitNet.providers());
        assertEquals("TestUsable", s.net().name());
        assertEquals(2, s.devices());
        assertEquals(List.of("TestFailing (refused: no hardware here)", "TestNoDevice (refused: no device)",
                "TestUsable (chosen, 2 devices)"), s.candidates().stream().map(NetCandidate::toString).toList());
    }

    @Test
    void ncclNetKeepsOnlyThatName() {
        NetSelection s = InitNet.choose(config(Map.of()), "TestUsable", InitNet.providers());
        assertEquals("TestUsable", s.net().name());
        assertTrue(s.candidates().get(0).status().startsWith("skipped: NCCL_NET=TestUsable"));
    }

    @Test
    void ncclNetIsCaseSensitive() {
        assertThrows(NcclUsageException.class, () -> InitNet.choose(config(Map.of()), "testusable", InitNet.providers()));
    }

    @Test
    void unknownNetListsEveryCandidate() {
        NcclUsageException e = assertThrows(NcclUsageException.class,
                () -> InitNet.choose(config(Map.of()), "bogus", InitNet.providers()));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertTrue(e.getMessage().contains("network bogus not found"), e.getMessage());
        for (String n : List.of("TestFailing", "TestNoDevice", "TestUsable")) {
            assertTrue(e.getMessage().contains(n + " (skipped: NCCL_NET=bogus)"), e.getMessage());
        }
    }

    @Test
    void selectedNetThatFailsNamesWhy() {
        NcclUsageException e = assertThrows(NcclUsageException.class,
                () -> InitNet.choose(config(Map.of()), "TestFailing", InitNet.providers()));
        assertTrue(e.getMessage().contains("TestFailing (refused: no hardware here)"), e.getMessage());
    }

    @Test
    void selectionIsCachedPerProcess() {
        Config c = config(Map.of("NCCL_NET", "TestUsable"));
        assertTrue(InitNet.select(c) == InitNet.select(c));
    }
}
