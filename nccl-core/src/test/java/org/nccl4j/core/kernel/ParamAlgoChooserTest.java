package org.nccl4j.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.nccl4j.DataType;
import org.nccl4j.NcclException;
import org.nccl4j.RedOp;
import org.nccl4j.Result;
import org.nccl4j.core.enqueue.CollOp;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.transport.Protocol;

/** {@code NCCL_ALGO} / {@code NCCL_PROTO} forcing, until the tuning model chooses. */
class ParamAlgoChooserTest {
    private static AlgoChooser.Choice choose(String algo, String proto, CollOp.Func func) {
        Map<String, String> env = new HashMap<>();
        if (algo != null) {
            env.put("NCCL_ALGO", algo);
        }
        if (proto != null) {
            env.put("NCCL_PROTO", proto);
        }
        Config c = Config.of(new Properties(), env, Path.of("/nonexistent"));
        CollOp op = new CollOp(func, MemorySegment.NULL, MemorySegment.NULL, 8, DataType.FLOAT32, RedOp.SUM, 0);
        return new ParamAlgoChooser(c).choose(op, 4);
    }

    @Test
    void ringAndSimpleUnlessExactlyOneIsNamed() {
        assertEquals(new AlgoChooser.Choice(Algorithm.RING, Protocol.SIMPLE), choose(null, null, CollOp.Func.ALL_REDUCE));
        assertEquals(new AlgoChooser.Choice(Algorithm.TREE, Protocol.LL), choose("tree", "ll", CollOp.Func.ALL_REDUCE));
        assertEquals(Protocol.LL128, choose(null, "LL128", CollOp.Func.ALL_REDUCE).protocol());
        assertEquals(Protocol.SIMPLE, choose(null, "LL,Simple", CollOp.Func.ALL_REDUCE).protocol());
        assertEquals(Protocol.LL128, choose(null, "^LL,Simple", CollOp.Func.ALL_REDUCE).protocol());
        assertEquals(Protocol.LL, choose(null, "LL,LL128", CollOp.Func.ALL_REDUCE).protocol(), "Simple excluded");
        assertEquals(Algorithm.TREE, choose("^Ring", null, CollOp.Func.ALL_REDUCE).algorithm());
        assertEquals(Algorithm.RING, choose("Tree,Ring,CollNet", null, CollOp.Func.ALL_REDUCE).algorithm());
    }

    @Test
    void treeRunsAllReduceOnly() {
        for (CollOp.Func f : CollOp.Func.values()) {
            assertEquals(f == CollOp.Func.ALL_REDUCE ? Algorithm.TREE : Algorithm.RING, choose("Tree", "LL", f).algorithm());
            assertEquals(Protocol.LL, choose("Tree", "LL", f).protocol());
        }
    }

    @Test
    void unknownNamesAndEmptySetsAreInvalidArguments() {
        NcclException e = assertThrows(NcclException.class, () -> choose("Star", null, CollOp.Func.ALL_REDUCE));
        assertEquals(Result.INVALID_ARGUMENT, e.result());
        assertTrue(e.getMessage().contains("NCCL_ALGO=Star"), e.getMessage());
        e = assertThrows(NcclException.class, () -> choose(null, "^LL,LL128,Simple", CollOp.Func.ALL_REDUCE));
        assertTrue(e.getMessage().contains("enables none"), e.getMessage());
        assertThrows(NcclException.class, () -> choose("CollNet", null, CollOp.Func.ALL_REDUCE));
    }
}
