package org.nccl4j.core.net;

import java.lang.foreign.MemorySegment;
import org.nccl4j.net.spi.Comm;
import org.nccl4j.net.spi.ListenComm;
import org.nccl4j.net.spi.MemoryHandle;
import org.nccl4j.net.spi.Net;
import org.nccl4j.net.spi.NetContext;
import org.nccl4j.net.spi.NetException;
import org.nccl4j.net.spi.NetProperties;
import org.nccl4j.net.spi.NetProvider;
import org.nccl4j.net.spi.RecvComm;
import org.nccl4j.net.spi.Request;
import org.nccl4j.net.spi.SendComm;

/**
 * Providers registered through META-INF/services for initNet's tests: one whose init fails, one
 * with no device, one usable. Only initNet's calls (init, devices, shutdown) are exercised; the
 * data path refuses with an error.
 */
public final class TestNetProviders {
    private TestNetProviders() {
    }

    /** A network whose behaviour at init is fixed. */
    static final class FixedNet implements Net {
        private final String name;
        private final NetException initFailure;
        private final int devices;

        FixedNet(String name, NetException initFailure, int devices) {
            this.name = name;
            this.initFailure = initFailure;
            this.devices = devices;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void init(NetContext context) throws NetException {
            if (initFailure != null) {
                throw initFailure;
            }
        }

        @Override
        public int devices() {
            return devices;
        }

        @Override
        public NetProperties getProperties(int dev) {
            return new NetProperties(name + dev, null, dev, PTR_HOST, 1000, 0, 1, 0f, 1);
        }

        private NetException unused() {
            return new NetException(NetException.Kind.INVALID_USAGE, name + " carries no data: it only exercises initNet");
        }

        @Override
        public ListenComm listen(int dev, byte[] handle) throws NetException {
            throw unused();
        }

        @Override
        public SendComm connect(int dev, byte[] handle) throws NetException {
            throw unused();
        }

        @Override
        public RecvComm accept(ListenComm listenComm) throws NetException {
            throw unused();
        }

        @Override
        public MemoryHandle regMr(Comm comm, MemorySegment data, int type) throws NetException {
            throw unused();
        }

        @Override
        public void deregMr(Comm comm, MemoryHandle handle) throws NetException {
            throw unused();
        }

        @Override
        public Request isend(SendComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
            throw unused();
        }

        @Override
        public Request irecv(RecvComm comm, MemorySegment data, MemoryHandle handle) throws NetException {
            throw unused();
        }

        @Override
        public long test(Request request) throws NetException {
            throw unused();
        }

        @Override
        public void closeSend(SendComm comm) {
        }

        @Override
        public void closeRecv(RecvComm comm) {
        }

        @Override
        public void closeListen(ListenComm comm) {
        }
    }

    /** Init fails, as IB does without hardware. */
    public static final class Failing implements NetProvider {
        @Override
        public String name() {
            return "TestFailing";
        }

        @Override
        public int priority() {
            return 10;
        }

        @Override
        public Net create() {
            return new FixedNet(name(), new NetException(NetException.Kind.SYSTEM, "no hardware here"), 0);
        }
    }

    /** Init works but there is no device. */
    public static final class NoDevice implements NetProvider {
        @Override
        public String name() {
            return "TestNoDevice";
        }

        @Override
        public int priority() {
            return 20;
        }

        @Override
        public Net create() {
            return new FixedNet(name(), null, 0);
        }
    }

    /** Usable, two devices. */
    public static final class Usable implements NetProvider {
        @Override
        public String name() {
            return "TestUsable";
        }

        @Override
        public int priority() {
            return 30;
        }

        @Override
        public Net create() {
            return new FixedNet(name(), null, 2);
        }
    }
}
