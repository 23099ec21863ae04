package org.nccl4j.core.comm;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.nccl4j.Communicator;
import org.nccl4j.Device;
import org.nccl4j.NcclException;
import org.nccl4j.Result;
import org.nccl4j.core.bootstrap.Bootstrap;
import org.nccl4j.core.debug.Log;
import org.nccl4j.core.debug.Subsys;
import org.nccl4j.core.init.PeerInfo;
import org.nccl4j.core.init.RankLayout;
import org.nccl4j.core.param.Config;
import org.nccl4j.core.wait.AbortFlag;

/**
 * nccl-core's communicator ({@code struct ncclComm}): what init established, the bootstrap it
 * keeps for later exchanges, the abort flag every wait observes, and the first asynchronous error.
 */
public final class CoreCommunicator implements Communicator {
    private final int rank;
    private final int nranks;
    private final Device device;
    private final String netName;
    private final List<PeerInfo> peers;
    private final RankLayout layout;
    private final Bootstrap bootstrap;
    private final AbortFlag abortFlag;
    private final Config config;
    private final Duration initTime;
    private final AtomicReference<NcclException> asyncError = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param rank      this rank
     * @param nranks    number of ranks
     * @param device    this rank's device
     * @param netName   the network chosen by initNet
     * @param peers     every rank's AllGather1 info
     * @param layout    where the ranks are
     * @param bootstrap the bootstrap, kept open for later exchanges
     * @param abortFlag the abort flag shared by everything this communicator waits on
     * @param config    the communicator's parameters
     * @param initTime  how long init took
     */
    public CoreCommunicator(int rank, int nranks, Device device, String netName, List<PeerInfo> peers,
                            RankLayout layout, Bootstrap bootstrap, AbortFlag abortFlag, Config config,
                            Duration initTime) {
        this.rank = rank;
        this.nranks = nranks;
        this.device = device;
        this.netName = netName;
        this.peers = List.copyOf(peers);
        this.layout = layout;
        this.bootstrap = bootstrap;
        this.abortFlag = abortFlag;
        this.config = config;
        this.initTime = initTime;
    }

    @Override
    public int count() {
        checkOpen();
        return nranks;
    }

    @Override
    public int userRank() {
        checkOpen();
        return rank;
    }

    @Override
    public Device device() {
        checkOpen();
        return device;
    }

    @Override
    public int nodeCount() {
        checkOpen();
        return layout.nodeCount();
    }

    @Override
    public String netName() {
        checkOpen();
        return netName;
    }

    @Override
    public Result asyncError() {
        NcclException e = asyncError.get();
        return e == null ? Result.SUCCESS : e.result();
    }

    /** @return the first asynchronous failure, or {@code null} */
    public NcclException asyncException() {
        return asyncError.get();
    }

    /**
     * Records a background failure; the first one sticks.
     *
     * @param e the failure
     */
    public void setAsyncError(NcclException e) {
        asyncError.compareAndSet(null, e);
    }

    /** @return every rank's AllGather1 info, index = rank */
    public List<PeerInfo> peers() {
        return peers;
    }

    /** @return where the ranks are */
    public RankLayout layout() {
        return layout;
    }

    /** @return the bootstrap, for exchanges after init */
    public Bootstrap bootstrap() {
        return bootstrap;
    }

    /** @return the abort flag every wait of this communicator observes */
    public AbortFlag abortFlag() {
        return abortFlag;
    }

    /** @return the communicator's parameters */
    public Config config() {
        return config;
    }

    /** @return how long init took */
    public Duration initTime() {
        return initTime;
    }

    @Override
    public void abort() {
        abortFlag.set("aborted by ncclCommAbort");
        if (closed.compareAndSet(false, true)) {
            bootstrap.abort();
            Log.info(Subsys.INIT, "comm rank %d nranks %d - Abort COMPLETE", rank, nranks);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            bootstrap.close();
            Log.info(Subsys.INIT, "comm rank %d nranks %d - Destroy COMPLETE", rank, nranks);
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw NcclException.of(Result.INVALID_ARGUMENT, "communicator of rank " + rank + " has already been destroyed",
                    "do not use a communicator after close() or abort()");
        }
    }

    @Override
    public String toString() {
        return "Communicator[rank " + rank + "/" + nranks + ", " + device + ", net " + netName + "]";
    }
}
