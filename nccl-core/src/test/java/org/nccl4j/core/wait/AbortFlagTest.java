package org.nccl4j.core.wait;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

class AbortFlagTest {
    @Test
    void aRequestedAbortEndsWaitsWithInvalidUsage() {
        AbortFlag f = new AbortFlag();
        assertDoesNotThrow(() -> f.check("nothing"));
        f.set("aborted by ncclCommAbort");
        NcclException e = assertThrows(NcclException.class, () -> f.check("waiting for data"));
        assertEquals(Result.INVALID_USAGE, e.result());
        assertEquals("waiting for data interrupted: communicator aborted by ncclCommAbort", e.detail());
    }

    @Test
    void anAbortAFailureSetEndsWaitsWithTheFailuresKindAndTheFirstCauseStays() {
        AbortFlag f = new AbortFlag();
        CommFailure failure = new CommFailure(f, "rank 0");
        failure.fail("rank 0 channel 1", NcclException.of(Result.REMOTE_ERROR, "rank 2 exited", null));
        f.set("aborted by ncclCommAbort"); // later: changes nothing
        NcclException e = assertThrows(NcclException.class, () -> f.check("connect to rank 2"));
        assertEquals(Result.REMOTE_ERROR, e.result());
        assertTrue(e.detail().contains("rank 0 channel 1 failed: "), e.detail());
        assertEquals(Result.REMOTE_ERROR, f.kind());

        AbortFlag g = new AbortFlag();
        g.set("stopped: the init deadline passed", Result.TIMEOUT);
        assertEquals(Result.TIMEOUT, assertThrows(NcclException.class, () -> g.check("accept from rank 1")).result());
    }
}
