import java.util.Arrays;
import org.nccl4j.Communicator;
import org.nccl4j.Nccl;
import org.nccl4j.RedOp;

/**
 * A rank of nccl-net-ext's multi-process tests (AcceptGatedConnectTest), run by the java launcher
 * in source-file mode with the test class path: this module's patched test compilation cannot
 * import nccl-api's package org.nccl4j, a plain class-path compilation can. Joins the
 * communicator the environment describes (LocalLauncher), runs one AllReduce(SUM) and prints it.
 */
public final class PluginRankMain {
    private PluginRankMain() {
    }

    /** @param args unused */
    public static void main(String[] args) {
        try (Communicator c = Nccl.commInitFromEnv()) {
            int r = c.userRank();
            long[] data = {r + 1, 100L * (r + 1), -r};
            c.allReduce(data, RedOp.SUM);
            System.out.println("rank " + r + " of " + c.count() + " net " + c.netName() + " allReduce " + Arrays.toString(data));
        }
    }
}
