package org.nccl4j.core.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.nccl4j.DataType;
import org.nccl4j.Group;
import org.nccl4j.Nccl;
import org.nccl4j.NcclException;
import org.nccl4j.NcclUsageException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;

/** The API's exception family, result numbering and group scope, as documented. */
class ApiContractTest {
    @Test
    void resultCodesAreNcclsNumbers() {
        Map<String, Integer> expected = new LinkedHashMap<>();
        // ncclResult_t of NCCL 2.10 (0-5) and of later NCCL (6 ncclRemoteError, 7 ncclInProgress); 8 is ours.
        expected.put("SUCCESS", 0);
        expected.put("UNHANDLED_DEVICE_ERROR", 1);
        expected.put("SYSTEM_ERROR", 2);
        expected.put("INTERNAL_ERROR", 3);
        expected.put("INVALID_ARGUMENT", 4);
        expected.put("INVALID_USAGE", 5);
        expected.put("REMOTE_ERROR", 6);
        expected.put("IN_PROGRESS", 7);
        expected.put("TIMEOUT", 8);
        Map<String, Integer> actual = new LinkedHashMap<>();
        for (Result r : Result.values()) {
            actual.put(r.name(), r.code());
        }
        assertEquals(expected, actual);
    }

    @Test
    void theExceptionFamilyIsSealedAndSuccessIsNoFailure() {
        assertTrue(NcclException.class.isSealed());
        Set<String> permitted = Arrays.stream(NcclException.class.getPermittedSubclasses()).map(Class::getSimpleName)
                .collect(Collectors.toSet());
        assertEquals(Set.of("NcclUsageException", "NcclSystemException", "NcclInternalException", "NcclRemoteException",
                "NcclTimeoutException"), permitted);
        for (Class<?> c : NcclException.class.getPermittedSubclasses()) {
            assertTrue(Modifier.isFinal(c.getModifiers()), c + " is final");
        }
        assertThrows(IllegalArgumentException.class, () -> NcclException.of(Result.SUCCESS, "fine", null));
    }

    @Test
    void everyBadEnumValueIsOneKindOfError() {
        assertBadValue(() -> Result.of(99));
        assertBadValue(() -> DataType.of(99));
        assertBadValue(() -> RedOp.of(99));
    }

    private static void assertBadValue(Executable call) {
        NcclException e = assertThrows(NcclException.class, call);
        assertInstanceOf(NcclUsageException.class, e);
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains(" 99"), e.getMessage());
    }

    @Test
    void aGroupScopeBelongsToItsThread() {
        Group g = Nccl.group();
        NcclException e = CompletableFuture.supplyAsync(() -> assertThrows(NcclException.class, g::close),
                r -> new Thread(r, "other").start()).join();
        assertEquals(Result.INVALID_USAGE, e.result(), e.getMessage());
        g.close();
        g.close(); // a second close is a no-op, not a second groupEnd
        NcclException unpaired = assertThrows(NcclException.class, Nccl::groupEnd);
        assertEquals(Result.INVALID_USAGE, unpaired.result(), "the scope ended the group exactly once");
    }
}
