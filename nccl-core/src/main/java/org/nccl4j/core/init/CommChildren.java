package org.nccl4j.core.init;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.nccl4j.CommConfig;
import org.nccl4j.Communicator;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.UniqueId;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.bootstrap.BootstrapAuth;
import org.nccl4j.core.bootstrap.BootstrapId;
import org.nccl4j.core.bootstrap.BootstrapRoot;
import org.nccl4j.core.comm.ChildComms;
import org.nccl4j.core.comm.CoreCommunicator;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.wait.AbortFlag;
import org.nccl4j.core.wait.Deadline;

/**
 * {@code ncclCommSplit} and {@code ncclCommShrink}: the members of the new communicator are
 * worked out on every rank alike; its rank 0 starts a bootstrap root and sends the id to the
 * other members over the parent's bootstrap (point to point, so ranks left out, dead or alive,
 * take no part), then all of them run init as for a unique id. The parent's bootstrap stays open
 * after a failure until the parent is closed ({@link Bootstrap#recoverySend}), which is what lets
 * the survivors of a failed communicator rebuild one without a new unique id.
 */
public final class CommChildren implements ChildComms {
    /** The one instance every communicator gets. */
    public static final CommChildren INSTANCE = new CommChildren();

    /** Bootstrap tags of the id hand-over: negative, apart from init's own. */
    private static final int TAG_BASE = Integer.MIN_VALUE;

    private CommChildren() {
    }

    @Override
    public CoreCommunicator split(CoreCommunicator parent, int color, int key, CommConfig config) {
        int seq = parent.nextChildSeq();
        Bootstrap b = parent.bootstrap();
        int rank = b.rank();
        Config childConfig = Config.global().with(config);
        Deadline deadline = Deadline.after(CommInit.initTimeout(childConfig, config));
        byte[] all = b.allGather(ByteBuffer.allocate(8).putInt(color).putInt(key).array(), deadline);
        ByteBuffer in = ByteBuffer.wrap(all);
        int[] colors = new int[b.nranks()];
        int[] keys = new int[b.nranks()];
        for (int r = 0; r < colors.length; r++) {
            colors[r] = in.getInt();
            keys[r] = in.getInt();
        }
        if (color == Communicator.SPLIT_NOCOLOR) {
            Log.info(Subsys.INIT, "comm split %d: rank %d takes no color", seq, rank);
            return null;
        }
        int[] members = IntStream.range(0, colors.length).filter(r -> colors[r] == color).boxed()
                .sorted(Comparator.<Integer>comparingInt(r -> keys[r]).thenComparingInt(r -> r))
                .mapToInt(Integer::intValue).toArray();
        return join(parent, members, seq, "split " + seq + " color " + color, config, childConfig, deadline, false);
    }

    @Override
    public CoreCommunicator shrink(CoreCommunicator parent, int[] excluded, CommConfig config) {
        int seq = parent.nextChildSeq();
        int[] members = IntStream.range(0, parent.bootstrap().nranks())
                .filter(r -> Arrays.binarySearch(excluded, r) < 0).toArray();
        Config childConfig = Config.global().with(config);
        Deadline deadline = Deadline.after(CommInit.initTimeout(childConfig, config));
        return join(parent, members, seq, "shrink " + seq + " without ranks " + Arrays.toString(excluded), config,
                childConfig, deadline, true);
    }

    /**
     * @param members     the parent ranks of the new communicator, in new-rank order; this rank among them
     * @param childConfig the parameters {@code config} gives (where the root's key is read)
     * @param recovery    whether the parent may have failed (the hand-over then ignores its abort flag)
     */
    private static CoreCommunicator join(CoreCommunicator parent, int[] members, int seq, String what,
                                         CommConfig config, Config childConfig, Deadline deadline, boolean recovery) {
        Bootstrap b = parent.bootstrap();
        int rank = b.rank();
        int newRank = IntStream.range(0, members.length).filter(i -> members[i] == rank).findFirst().orElseThrow();
        int leader = members[0];
        int tag = TAG_BASE + seq;
        Log.info(Subsys.INIT, "comm %s: rank %d becomes rank %d of %d (ranks %s)", what, rank, newRank,
                members.length, Arrays.toString(members));
        BootstrapRoot root = null;
        try {
            UniqueId id;
            if (rank == leader) {
                Duration timeout = Duration.ofMillis(Math.max(1, deadline.remainingMillis()));
                long nonce = BootstrapId.newNonce();
                root = BootstrapRoot.start(new InetSocketAddress(b.listenAddress().getAddress(), 0), nonce, timeout,
                        BootstrapAuth.of(childConfig));
                id = new BootstrapId(root.address(), nonce, false).toUniqueId();
                for (int i = 1; i < members.length; i++) {
                    if (recovery) {
                        b.recoverySend(members[i], tag, id.toBytes(), deadline);
                    } else {
                        b.send(members[i], tag, id.toBytes(), deadline);
                    }
                }
            } else {
                byte[] got = recovery ? b.recoveryRecv(leader, tag, deadline) : b.recv(leader, tag, deadline);
                id = UniqueId.fromBytes(got);
            }
            return CommInit.initRank(members.length, id, newRank, config, new AbortFlag());
        } catch (NcclException e) {
            throw NcclException.of(e.result(), "comm " + what + " on rank " + rank + ": " + e.detail(),
                    e.result() == Result.TIMEOUT ? "every rank left in must call it with the same arguments, in the "
                            + "same order as its other splits and shrinks; rank " + leader + " leads it" : e.hint(), e);
        } finally {
            if (root != null) {
                root.close();
            }
        }
    }
}
